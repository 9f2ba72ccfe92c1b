import type { CommandHandlers } from '#contract/commands';
import { CommandError } from '#contract/errors';
import { join } from 'node:path';
import type { SessionSummary } from '#protocol';
import { LOG_FILE, type Session, summaryOf } from '#infra/sessions/session';
import { type TailView, readTailView } from '#infra/sessions/tail-view';
import { type SessionStore, isValidSessionId } from '#infra/sessions/store';
import type { CapabilitySet } from '../capability-set';
import type { Runs } from '../turn/runs';
import { type SessionLoadDeps, openSession, startOpenSession } from './load';
import type { LetGo, OpenSession } from './open-session';
import { IdleSweep, canUnload } from './sweep';
import { unloadSession } from './unload';

const UNLOAD_AFTER_MS = 60_000;

export interface SessionPoolDeps extends SessionLoadDeps {
  store: SessionStore;
  capabilities: CapabilitySet;
  runs: Runs;
  /** How long a session that no viewer shows and that has nothing running stays loaded (default 60 s; Infinity: always). */
  unloadAfterMs?: number;
}

/**
 * The sessions a core holds open: loaded when something names them, shown by viewers (a window, a connection, a CLI
 * run), and let go of once nothing shows or uses them for a while. A session let go of is loaded again from its log,
 * exactly as it was, by the next thing that names it.
 */
export class SessionPool {
  private readonly open = new Map<string, OpenSession>();
  /** The session each window (or connection, or the CLI) shows, by viewer id. */
  private readonly viewers = new Map<string, string>();
  /** Commands in progress, by the session they name: such a session is never let go of. */
  private readonly inUse = new Map<string, number>();
  /** Sessions being let go of: loading one again waits for its log to be written. */
  private readonly unloading = new Map<string, Promise<void>>();
  private readonly letGo = new Map<string, LetGo>();
  /** Sessions whose tail a window's first open reads (firstView): loading one waits for that. */
  private readonly viewing = new Map<string, Promise<unknown>>();
  /** Sessions being read from their logs (not open yet). */
  private readonly reading = new Map<string, Promise<OpenSession>>();
  /** Sessions whose capabilities are still being told they loaded: a command naming one waits for them. */
  private readonly loading = new Map<string, Promise<void>>();
  private readonly sweep: IdleSweep;

  constructor(private readonly deps: SessionPoolDeps) {
    const checks = { shown: () => this.shown(), inUse: (id: string) => this.inUse.has(id), runs: deps.runs, capabilities: deps.capabilities };
    this.sweep = new IdleSweep(deps.unloadAfterMs ?? UNLOAD_AFTER_MS, {
      sessions: () => [...this.open.values()],
      shown: () => this.shown(),
      canUnload: (open) => canUnload(open, checks),
      unload: (open) => void this.unload(open),
    });
  }

  /** An open session, loading it from its log if needed (once, however many ask meanwhile); throws when it does not exist. */
  async get(sessionId: string): Promise<OpenSession> {
    await this.unloading.get(this.checkedId(sessionId));
    const cached = this.open.get(sessionId);
    if (cached) return this.ready(cached);
    let reading = this.reading.get(sessionId);
    if (!reading && this.viewing.has(sessionId)) {
      await this.viewing.get(sessionId);
      return this.get(sessionId);
    }
    if (!reading) {
      reading = this.read(sessionId).finally(() => this.reading.delete(sessionId));
      this.reading.set(sessionId, reading);
    }
    return reading;
  }

  /**
   * A window's first open of a session that is not loaded: its tail read from the log's newest snapshot, or from its
   * events alone (readTailView). The session is not loaded for it: the first command that needs the session loads
   * it (the window asks for its tasks once the tail is shown). Null where the tail cannot be read so: the caller
   * opens the session the usual way.
   */
  async firstView(sessionId: string): Promise<{ summary: SessionSummary; view: TailView } | null> {
    // A session being let go of is read once its log (with its snapshot) is written.
    await this.unloading.get(this.checkedId(sessionId));
    if (this.open.has(sessionId) || this.unloading.has(sessionId)) return null;
    const viewing = (async () => {
      const meta = await this.deps.store.readMeta(sessionId);
      const view = meta ? await readTailView(join(this.deps.store.dirOf(sessionId), LOG_FILE)) : null;
      return meta && view ? { summary: summaryOf(meta), view } : null;
    })().catch(() => null);
    // The window asks for more at once (its tasks): loading the session for that waits for the tail to be read.
    this.viewing.set(sessionId, viewing);
    const first = await viewing.finally(() => this.viewing.get(sessionId) === viewing && this.viewing.delete(sessionId));
    // Once it is open its events reach the window: then it answers itself.
    if (!first || this.open.has(sessionId)) return null;
    // Not loaded now: the first command that needs it loads it (a window asks for its tasks once the tail is shown).
    return first;
  }

  private async read(sessionId: string): Promise<OpenSession> {
    const loaded = await this.deps.store.load(sessionId);
    if (!loaded) throw new CommandError('not_found', `Session ${sessionId} does not exist in this workspace.`);
    const raced = this.open.get(sessionId);
    if (raced) return this.ready(raced);
    // A log read whole because it had no snapshot gets one now: its next first open (after a restart) reads only its tail.
    if (loaded.session.lacksSnapshot) void loaded.session.snapshot().catch(() => {});
    return this.add(loaded.session, loaded.problems, 'resume');
  }

  /**
   * An open session once every capability has been told it loaded: a command naming a session while it loads (the
   * window opens it and asks for its tasks at once) must not find it half loaded.
   */
  private async ready(open: OpenSession): Promise<OpenSession> {
    open.lastUsed = performance.now();
    await this.loading.get(open.session.id);
    return open;
  }

  /** A new session, open. */
  async create(): Promise<OpenSession> {
    return this.add(await this.deps.store.create(), [], 'startup');
  }

  /** The session open now, if it is (never loads it). */
  loaded(sessionId: string): OpenSession | undefined {
    return this.open.get(sessionId);
  }

  all(): OpenSession[] {
    return [...this.open.values()];
  }

  /** A viewer now shows `sessionId` (null: none, or it closed). */
  show(viewer: string, sessionId: string | null): void {
    if (sessionId === null) this.viewers.delete(viewer);
    else this.viewers.set(viewer, sessionId);
    this.sweep.arm();
  }

  shown(): Set<string> {
    return new Set(this.viewers.values());
  }

  /** The sessions of this workspace, newest first: open ones as they are now, with what waits for the user. */
  async list() {
    const metas = await this.deps.store.list();
    return metas.map((meta) => {
      const summary = this.open.get(meta.id)?.session.summary() ?? summaryOf(meta);
      const waiting = this.deps.capabilities.waitingFor(meta.id);
      return waiting.length ? { ...summary, waiting } : summary;
    });
  }

  /** Every command that names a session keeps it loaded while it runs. */
  holding(handlers: Partial<CommandHandlers>): Partial<CommandHandlers> {
    const held: Record<string, (input: unknown) => Promise<unknown>> = {};
    for (const [name, handler] of Object.entries(handlers) as Array<[string, (input: unknown) => Promise<unknown>]>) {
      held[name] = async (input) => {
        const sessionId = (input as { sessionId?: unknown } | undefined)?.sessionId;
        if (typeof sessionId !== 'string') return handler(input);
        this.inUse.set(sessionId, (this.inUse.get(sessionId) ?? 0) + 1);
        try {
          return await handler(input);
        } finally {
          const left = (this.inUse.get(sessionId) ?? 1) - 1;
          if (left > 0) this.inUse.set(sessionId, left);
          else this.inUse.delete(sessionId);
          const open = this.open.get(sessionId);
          if (open) open.lastUsed = performance.now();
        }
      };
    }
    return held;
  }

  /** Waits for a session being let go of to be written (before it is deleted or loaded again). */
  async settledUnload(sessionId: string): Promise<void> {
    await this.unloading.get(sessionId);
  }

  /** Forget a session that is being deleted, and what it kept for being loaded again. */
  forget(sessionId: string): void {
    this.open.delete(sessionId);
    this.letGo.delete(sessionId);
  }

  /** No viewer shows the session any more (it was deleted). */
  unshow(sessionId: string): void {
    for (const [viewer, shown] of this.viewers) if (shown === sessionId) this.viewers.delete(viewer);
  }

  checkedId(sessionId: string): string {
    if (!isValidSessionId(sessionId)) throw new CommandError('invalid_request', `"${sessionId}" is not a valid session id.`);
    return sessionId;
  }

  /** Stop letting go of sessions, and wait for those being let go of. */
  async close(): Promise<void> {
    this.sweep.stop();
    await Promise.allSettled(this.unloading.values());
  }

  private async add(session: Session, problems: string[], source: 'startup' | 'resume'): Promise<OpenSession> {
    const open = openSession(this.deps, session, problems);
    // Registered before anything is awaited: whatever names it while it loads finds this one.
    this.open.set(session.id, open);
    const ready = startOpenSession(this.deps.capabilities, open, source, () => {
      const kept = this.letGo.get(session.id);
      this.letGo.delete(session.id);
      return kept;
    });
    this.loading.set(session.id, ready);
    try {
      await ready;
    } finally {
      if (this.loading.get(session.id) === ready) this.loading.delete(session.id);
    }
    this.sweep.arm();
    return open;
  }

  /** Let go of an idle session; the next command naming it (or a stale reference starting a turn) loads it again. */
  private unload(open: OpenSession): Promise<void> {
    const id = open.session.id;
    this.open.delete(id);
    const done = unloadSession(open, this.deps.capabilities).then((kept) => void this.letGo.set(id, kept));
    this.unloading.set(id, done);
    return done.finally(() => {
      if (this.unloading.get(id) === done) this.unloading.delete(id);
    });
  }
}
