import { join, relative, sep } from 'node:path';
import type { CheckpointsStatus } from '#protocol';
import { isWithin } from '#infra/policies/path-guard';
import { CommandError } from '#contract/errors';
import type { CoreContext, SessionHandle } from '#contract/capability';
import type { Environment } from '#contract/environment';
import { readCheckpointSettings } from './settings';
import { gitBinary } from '#infra/git/git';
import { type Capture, type Checkpoint, type CheckpointKind, type CheckpointMeta, CheckpointStore } from './store/store';
import type { CheckpointStoreApi } from './store/store-api';
import type { RecoveredRewind } from './store/journal';
import { GitError } from './store/git';
import { NO_GIT_EXIT } from './store/remote-git';
import { ChangeWatch } from './change-watch';

/**
 * Where no window keeps Deft running (a one-shot `deft run`), the watch starts before the checkpoint of the first step
 * that runs a command (a text-only or edit-only run never starts it): that capture is its starting point, and the
 * captures after the command (and every later one) are narrowed. Its walk costs about what the scan it saves does.
 */
const WATCH_FROM_COMMAND = 1;

/** Workspace-relative paths ('/'-separated) of the absolute paths inside the workspace. */
function workspacePaths(workspace: string, paths: readonly string[]): string[] {
  return [...new Set(paths.filter((p) => p !== workspace && isWithin(p, workspace)).map((p) => relative(workspace, p).split(sep).join('/')))];
}

/**
 * The checkpoints of the core's workspace: the store (opened on first use, or never when git is missing
 * or checkpoints are off), and the checkpoints sessions take. A checkpoint that cannot be taken never
 * stops a turn: the session is told once, in its transcript.
 */
export class WorkspaceCheckpoints {
  private opening: Promise<CheckpointStoreApi | null> | null = null;
  private state: CheckpointsStatus = { available: false, reason: 'Checkpoints are starting.' };
  /** Each session's latest checkpoint (its tree decides whether a new one is needed). */
  private readonly latest = new Map<string, Checkpoint | null>();
  private readonly warned = new Set<string>();
  /** The interrupted rewind the store finished that a session was told of last. */
  private told: RecoveredRewind | null = null;
  /** Which files may have changed, from a watch of a local workspace (made with the store; null where there is none). */
  private watch: ChangeWatch | null = null;
  /** Steps that ran a command (or anything else that names no files) so far, counted at their checkpoint before. */
  private commands = 0;
  /** The model began a call that runs a command: the watch starts before the next capture of the whole workspace. */
  private commandExpected = false;

  constructor(private readonly core: CoreContext) {}

  /** The machine the workspace is on (its files are read and written through it). */
  get environment(): Environment {
    return this.core.environment;
  }

  /** The store, or null when checkpoints are unavailable here (`status()` says why). */
  store(): Promise<CheckpointStoreApi | null> {
    this.opening ??= this.open();
    return this.opening;
  }

  async status(): Promise<CheckpointsStatus> {
    const store = await this.store();
    const watch = this.watch?.problem;
    return { ...this.state, ...(store?.recovered ? { recovered: this.describe(store.recovered) } : {}), ...(watch ? { watch } : {}) };
  }

  /** The store, or a CommandError saying why there is none. */
  async require(): Promise<CheckpointStoreApi> {
    const store = await this.store();
    if (!store) throw new CommandError('unsupported', this.state.reason ?? 'Checkpoints are not available.');
    return store;
  }

  /**
   * Take a checkpoint of the session now. Unless `always`, nothing is recorded when the workspace is as the
   * session's latest checkpoint left it. With `only` (absolute paths), only those files are looked at
   * (CheckpointStore.capture), and nothing is taken when none is in the workspace. Resolves to the checkpoint,
   * null when nothing new was recorded, undefined when none could be taken. Never throws: a failure is
   * reported to the session once.
   */
  async take(session: SessionHandle, meta: Omit<CheckpointMeta, 'session'>, always = false, only?: readonly string[]): Promise<Checkpoint | null | undefined> {
    try {
      const store = await this.store();
      if (!store) return undefined;
      const paths = only && workspacePaths(store.places.workspace, only);
      if (paths?.length === 0) return null;
      return await store.locked(async () => {
        this.tellRecovered(session, store);
        const capture = await this.captureNow(store, meta.kind, paths);
        return this.recordIfNew(store, session.id, capture, meta, always);
      });
    } catch (error) {
      this.warnOnce(session, error);
      return undefined;
    }
  }

  /**
   * A checkpoint at the session's latest tree (the store's HEAD for a session without one), without looking at
   * the workspace: for a turn in which nothing Deft runs could change a file (a text-only turn), so that it
   * starts no git and reads no file of the workspace. An edit made outside Deft meanwhile shows at the next
   * capture, as outside. Where the store has never captured (the first turn in the workspace), a capture it is.
   * Never throws.
   */
  async takeUnchanged(session: SessionHandle, meta: Omit<CheckpointMeta, 'session'>): Promise<Checkpoint | null | undefined> {
    try {
      const store = await this.store();
      if (!store) return undefined;
      return await store.locked(async () => {
        this.tellRecovered(session, store);
        // (A seeded HEAD that no checkpoint has followed yet, after a warm-up, is no look at the workspace: a capture then.)
        const provisional = store instanceof CheckpointStore && store.provisionalHead;
        const tree = (await this.latestOf(store, session.id))?.tree ?? (provisional ? null : await store.headTree());
        const capture = tree ? { tree, skipped: [] } : await store.capture();
        return this.recordIfNew(store, session.id, capture, meta, true);
      });
    } catch (error) {
      this.warnOnce(session, error);
      return undefined;
    }
  }

  /** Record a capture for the session unless it equals the session's latest checkpoint (and `always` is not set). Call holding the lock. */
  async recordIfNew(
    store: CheckpointStoreApi,
    sessionId: string,
    capture: Capture,
    meta: Omit<CheckpointMeta, 'session'>,
    always: boolean,
  ): Promise<Checkpoint | null> {
    const last = await this.latestOf(store, sessionId);
    if (!always && last?.tree === capture.tree) return null;
    const checkpoint = await store.record(capture, { ...meta, session: sessionId });
    this.latest.set(sessionId, checkpoint);
    return checkpoint;
  }

  /**
   * The workspace now, as a tree in the store (call holding the lock). With `paths`, those only. Without, and with a
   * live watch of a local workspace whose starting point is HEAD, only the paths it reported since (after its fence);
   * otherwise git's status over the whole workspace. The watch starts (once) before the first capture where a window
   * keeps Deft running, or else before the checkpoint taken just before the first step that runs a command
   * (WATCH_FROM_COMMAND), so that capture is its starting point and the captures after are narrowed; a one-shot run of
   * fewer commands never loads it.
   */
  async captureNow(store: CheckpointStoreApi, kind: CheckpointKind | 'warm', paths?: readonly string[]): Promise<Capture> {
    const watch = this.watch;
    if (!watch) return store.capture(paths);
    if (!paths && kind === 'tools') this.commands++;
    if (!paths && (this.core.host.hasWindow || this.commandExpected || this.commands >= WATCH_FROM_COMMAND)) await watch.start();
    const head = watch.live ? await store.headTree() : null;
    try {
      const changed = paths ?? (await watch.changedSince(head));
      if (changed) {
        const capture = await store.capture(changed);
        watch.narrowed(head, capture.tree);
        return capture;
      }
      const scan = watch.beginScan();
      const capture = await store.capture();
      watch.scanned(scan, capture.tree);
      return capture;
    } catch (error) {
      watch.lost();
      throw error;
    }
  }

  /**
   * The model began a call that runs a command (its arguments may still be streaming): in a one-shot run, the watch
   * starts before the next capture of the whole workspace (usually the turn's checkpoint, taken meanwhile) instead of
   * the one just before the command, so that one and the one after the command are narrowed: one scan fewer.
   */
  commandComing(): void {
    this.commandExpected = true;
  }

  /**
   * Whether a turn's checkpoint may wait for the turn's first step that may write, and be narrowed to the files that
   * step names (Write, Edit): a local store with a HEAD, and no live watch (where one is live, the checkpoint looks at
   * what it reported instead, as cheaply). What changed elsewhere before the turn is then taken in by the next capture
   * of the whole workspace, which is one taken just before Deft acts (a command's step, the next prompt, a rewind): as
   * changed outside the turn, as it would have been here.
   */
  async narrowableBaseline(): Promise<boolean> {
    const store = await this.store().catch(() => null);
    // A seeded HEAD that no checkpoint has followed yet (a warm-up's capture) stands for no look at the workspace.
    if (!(store instanceof CheckpointStore) || this.watch?.live || store.provisionalHead) return false;
    const head = await store.headTree().catch(() => null);
    return head?.length === 40;
  }

  /** Warm up: a first capture fills the store's index, so the first prompt's checkpoint is quick. */
  async warm(): Promise<void> {
    const store = await this.store().catch(() => null);
    if (store) await store.locked(() => this.captureNow(store, 'warm')).catch(() => {});
  }

  /** Stop watching the workspace. */
  async closeWatch(): Promise<void> {
    await this.watch?.close();
  }

  /** The tree of the session's latest checkpoint: remembered, so a turn's end does not list every checkpoint of a long session. */
  async latestTree(sessionId: string): Promise<string | null> {
    const store = await this.store();
    return store ? ((await this.latestOf(store, sessionId))?.tree ?? null) : null;
  }

  forget(sessionId: string): void {
    this.latest.delete(sessionId);
  }

  private async latestOf(store: CheckpointStoreApi, sessionId: string): Promise<Checkpoint | null> {
    if (!this.latest.has(sessionId)) this.latest.set(sessionId, (await store.list(sessionId)).at(-1) ?? null);
    return this.latest.get(sessionId) ?? null;
  }

  private async open(): Promise<CheckpointStoreApi | null> {
    const settings = await readCheckpointSettings(this.core.home);
    if (!settings.enabled) {
      this.state = { available: false, reason: 'Checkpoints are turned off ("checkpoints": {"enabled": false} in settings.json).' };
      return null;
    }
    if (this.core.environment.kind !== 'local') return this.openRemote(settings.maxFileBytes);
    // Found on PATH without running it: a run that changes nothing starts no git.
    if (!gitBinary()) {
      this.state = { available: false, reason: 'Checkpoints need git, and git was not found. Install git (or set DEFT_GIT to its path) and restart Deft.' };
      return null;
    }
    try {
      const store = await CheckpointStore.open(this.core.home, this.core.workspace, { maxFileBytes: settings.maxFileBytes, now: () => this.core.now() });
      this.state = { available: true };
      this.watch = this.watchFor(store);
      return store;
    } catch (error) {
      this.state = { available: false, reason: `Checkpoints could not be set up: ${(error as Error).message}` };
      return null;
    }
  }

  /** A watch of the workspace where its Environment has one that can fence (a local folder on Linux); not started yet. */
  private watchFor(store: CheckpointStore): ChangeWatch | null {
    const { environment, home } = this.core;
    const { workspace, gitDir } = store.places;
    if (!ChangeWatch.available(environment)) return null;
    // Never reported, walked or watched: the repository's own git folder, and Deft's home (the store, the fences) when it is inside.
    const ignore = [join(workspace, '.git'), ...(isWithin(home, workspace) && home !== workspace ? [home] : [])];
    // Nor the folders a .gitignore leaves out that the store holds nothing in (watch-ignore.ts): a node_modules is not walked.
    // (Not under the store's lock: asked while a capture holds it, as the watch starts; HEAD is replaced whole, by a rename.)
    const tracked = (path: string) => store.holds(path);
    return new ChangeWatch(environment, workspace, { ignore, fenceDir: `${gitDir}.fence`, tracked });
  }

  /** A workspace on another machine: its store there, driven by its git (store/remote-store.ts). */
  private async openRemote(maxFileBytes: number): Promise<CheckpointStoreApi | null> {
    const { environment } = this.core;
    try {
      // Loaded for a remote workspace only: a local one never needs the remote store's code.
      const { RemoteCheckpointStore } = await import('./store/remote-store');
      const store = await RemoteCheckpointStore.open(environment, this.core.workspace, {
        maxFileBytes,
        now: () => this.core.now(),
        lockDir: join(this.core.home, 'checkpoints'),
        key: this.core.place.id,
      });
      this.state = { available: true };
      return store;
    } catch (error) {
      this.state =
        error instanceof GitError && error.exitCode === NO_GIT_EXIT
          ? {
              available: false,
              reason: `Checkpoints need git on ${environment.label}, and git was not found there. Install git on that machine and start the session again.`,
            }
          : { available: false, reason: `Checkpoints could not be set up on ${environment.label}: ${(error as Error).message}` };
      return null;
    }
  }

  /** A rewind that was interrupted (Deft stopped, the connection dropped) and that the store finished, in words. */
  private describe(done: RecoveredRewind): string {
    const where = this.core.environment.kind === 'local' ? '' : ` on ${this.core.environment.label}`;
    const left = done.problems.length
      ? ` ${done.problems.length} could not be put back: ${done.problems.map((p) => `${p.path} (${p.reason})`).join(', ')}.`
      : '';
    return `A rewind${where} was interrupted (Deft stopped or the connection dropped); it was finished later: ${done.paths} ${done.paths === 1 ? 'path' : 'paths'} put back.${left} The files as they were before it are in the checkpoint taken just before the rewind.`;
  }

  /** Tell the session taking a checkpoint of an interrupted rewind the store finished, once. */
  private tellRecovered(session: SessionHandle, store: CheckpointStoreApi): void {
    const done = store.recovered;
    if (!done || done === this.told) return;
    this.told = done;
    session.emit({ type: 'error', code: 'internal', message: this.describe(done) });
  }

  private warnOnce(session: SessionHandle, error: unknown): void {
    if (this.warned.has(session.id)) return;
    this.warned.add(session.id);
    session.emit({
      type: 'error',
      code: 'internal',
      message: `A checkpoint could not be saved, so rewinding may not restore the latest changes: ${(error as Error)?.message ?? String(error)}`,
    });
  }
}
