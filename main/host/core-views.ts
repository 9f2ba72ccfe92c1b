import { z } from 'zod';
import { type DeftEvent, type HostView, worktreeSchemas } from '#protocol';
import { builtOnce } from '#protocol/helpers/built-once';
import { type CoreKey, WaitingBoard } from './waiting-board';
import { type OpenedWorktree, type WorktreeFolder, WorktreeCores } from './worktree-cores';

/** What a view needs of a core: its events, and which session a viewer shows (so an idle one no viewer shows can go). */
export interface ViewedCore {
  close(): Promise<void>;
  onEvent(listener: (event: DeftEvent) => void): () => void;
  show(viewer: string, sessionId: string | null): void;
}

/** What a window asks to be shown: a worktree by name, or the main checkout (null). Never a path. */
export const viewRequestSchema = builtOnce(() => z.union([z.null(), worktreeSchemas().WorktreeViewName]));

export interface CoreViewsOptions<C extends ViewedCore> {
  /** The window's main checkout core (its folder). */
  main: C;
  /** Who this is, to the cores (`show`). */
  viewer: string;
  /** A worktree's core by name (WorktreeCores.open, shared by the window's views): throws for one it cannot serve. */
  worktreeCore?: (name: string) => Promise<OpenedWorktree<C>>;
  /** What waits in every core: the window is told what waits in the ones it does not show. */
  waiting?: WaitingBoard;
  /** To the window: which core it shows now (first, after each switch), then that core's events. */
  send(message: { view: HostView } | { event: DeftEvent }): void;
}

/**
 * One window, several cores (the desktop app's side of what the web host does per socket): the window shows one core
 * at a time — its folder's main checkout, or a worktree's, switched to by NAME — and the others keep running (a turn
 * there goes on, a request there waits and is told as `requests.elsewhere`). Commands go to the core shown; only its
 * events reach the window. Electron-free, so it is tested without Electron (core-views.test.ts).
 */
export class CoreViews<C extends ViewedCore> {
  private shown: C;
  private view: HostView = { worktree: null };
  private unsubscribe: () => void = () => {};
  private unwatch: () => void = () => {};
  private closed = false;
  /** Switches asked for, in order: only the newest one's answer is served. */
  private switches = 0;

  constructor(private readonly options: CoreViewsOptions<C>) {
    this.shown = options.main;
    this.follow(options.main, this.view);
  }

  /** The core shown now: the window's commands go there. */
  get core(): C {
    return this.shown;
  }

  /** Which core is shown now. */
  get current(): HostView {
    return this.view;
  }

  /**
   * Show worktree `name` (null: the main checkout). The name is zod-checked before anything is read; one that is not
   * a name, or a worktree that cannot be served, leaves the window on the main checkout, told why (`refused`).
   */
  async switchTo(name: unknown): Promise<HostView> {
    const mine = ++this.switches;
    const parsed = viewRequestSchema().safeParse(name);
    let next: { core: C; view: HostView };
    if (!parsed.success)
      next = { core: this.options.main, view: { worktree: null, refused: 'That is not a worktree name (a window names a worktree, never a folder).' } };
    else if (parsed.data === null) next = { core: this.options.main, view: { worktree: null } };
    else if (!this.options.worktreeCore) next = { core: this.options.main, view: { worktree: null, refused: 'This window shows no worktrees.' } };
    else {
      try {
        const opened = await this.options.worktreeCore(parsed.data);
        next = { core: opened.core, view: worktreeSchemas().HostView.parse({ worktree: { name: opened.name, branch: opened.branch } }) };
      } catch (error) {
        const reason = String((error as Error)?.message ?? error).slice(0, 500);
        next = { core: this.options.main, view: { worktree: null, refused: `The worktree could not be opened here: ${reason}` } };
      }
    }
    // A newer switch asked meanwhile wins; a closed window switches nothing.
    if (mine !== this.switches || this.closed) return next.view;
    this.leave();
    this.shown = next.core;
    this.view = next.view;
    this.follow(next.core, next.view);
    return next.view;
  }

  /** The window closed: nothing more is sent, and no core keeps a session shown for it. */
  close(): void {
    this.closed = true;
    this.leave();
  }

  private leave(): void {
    this.unsubscribe();
    this.unwatch();
    this.unsubscribe = () => {};
    this.unwatch = () => {};
    this.shown.show(this.options.viewer, null);
  }

  private follow(core: C, view: HostView): void {
    if (this.closed) return;
    this.options.send({ view });
    this.unsubscribe = core.onEvent((event) => this.options.send({ event }));
    const board = this.options.waiting;
    if (!board) return;
    const key: CoreKey = view.worktree;
    let told = '';
    const tell = () => {
      const event = board.elsewhere(key);
      const text = JSON.stringify(event);
      if (text === told) return;
      told = text;
      this.options.send({ event });
    };
    tell();
    this.unwatch = board.subscribe(tell);
  }
}

/** What a window's cores need (DeftCore has it). */
export type WindowCore = ViewedCore;

export interface WindowViewsOptions<C extends WindowCore> {
  /** The window's folder's core. */
  main: C;
  viewer: string;
  /** The folder of worktree `name` from Deft's records (WorktreeCores' resolve); absent: a window that shows no worktrees (a remote folder). */
  resolve?: (name: string) => Promise<WorktreeFolder>;
  /** A core on a worktree's folder (a folder of its own for trust). */
  create(path: string): C;
  send: CoreViewsOptions<C>['send'];
}

/**
 * A window's cores, as the web host keeps them for its pages: its folder's core, one per worktree it switched to (made
 * on first use, kept running while the window shows another), what waits in each, and which one the window shows.
 * `close` ends them all (the window closed).
 */
export function windowViews<C extends WindowCore>(options: WindowViewsOptions<C>) {
  const waiting = new WaitingBoard();
  waiting.watch(null, options.main);
  const resolve = options.resolve;
  const cores = resolve
    ? new WorktreeCores<C>({ resolve, create: (path) => options.create(path), made: (core, worktree) => waiting.watch(worktree, core) })
    : null;
  const views = new CoreViews<C>({
    main: options.main,
    viewer: options.viewer,
    ...(cores ? { worktreeCore: (name: string) => cores.open(name) } : {}),
    waiting,
    send: options.send,
  });
  return {
    views,
    cores,
    waiting,
    async close(): Promise<void> {
      views.close();
      waiting.forgetAll();
      await Promise.allSettled([cores?.closeAll(), options.main.close()]);
    },
  };
}
