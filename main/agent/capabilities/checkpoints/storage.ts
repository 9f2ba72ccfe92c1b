import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckpointStorage } from '#protocol';
import { workspaceSessionsDir } from '#infra/sessions/store';
import { readCheckpointSettings } from './settings';
import type { Checkpoint } from './store/store';
import type { CheckpointStoreApi } from './store/store-api';
import type { WorkspaceCheckpoints } from './workspace';

/** Loose objects beyond this are packed after a turn. */
const PACK_AFTER_LOOSE = 1_000;
/** The size cap is checked after a turn at most this often. */
const CAP_CHECK_INTERVAL_MS = 10 * 60 * 1000;
/** Beside a local store's git folder: when its size was last checked against the cap (this.now(), in ms). */
const CAP_CHECKED = '.cap-checked';
/** Each session keeps at least its newest checkpoints when the cap forces the oldest out. */
const KEEP_NEWEST = 2;
/** A store seeded from the repository copies the objects it borrows this long after a turn, when Deft is still running. */
const OWN_OBJECTS_AFTER_MS = 60_000;

/**
 * The store's size, kept under the cap: the checkpoints of deleted sessions go first (oldest first), then the
 * oldest of the others, until the store fits; objects no checkpoint needs are then removed.
 */
export class CheckpointStorageKeeper {
  private lastCapCheck = 0;
  private packing: Promise<void> | null = null;
  private owning: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly checkpoints: WorkspaceCheckpoints,
    private readonly home: string,
    /** The workspace's key (WorkspacePlace.id: its path here, `ssh://…` for a remote one): its sessions are kept under it. */
    private readonly workspaceKey: string,
    private readonly now: () => number,
  ) {}

  /** After a turn: pack loose objects in the background, and keep the store under its cap now and then. */
  afterTurn(): void {
    if (this.packing) return;
    this.packing = (async () => {
      const store = await this.checkpoints.store();
      if (!store) return;
      // Packing is safe beside other git commands; only the removal of unneeded objects needs the lock.
      if ((await store.looseObjects()) > PACK_AFTER_LOOSE) await store.compact(false);
      if (await this.capCheckDue(store)) await this.enforceCap(store, false);
      if (!this.owning && (await store.borrows())) {
        // Off the turn's path, and never keeping a process alive (a one-shot run leaves it to a later one).
        this.owning = setTimeout(
          () =>
            void store
              .locked(() => store.ownObjects())
              .catch(() => {})
              .finally(() => (this.owning = null)),
          OWN_OBJECTS_AFTER_MS,
        );
        this.owning.unref();
      }
    })()
      .catch(() => {})
      .finally(() => (this.packing = null));
  }

  /** Stop what is scheduled (the core is closing). */
  close(): void {
    if (this.owning) clearTimeout(this.owning);
  }

  async report(): Promise<CheckpointStorage> {
    const status = await this.checkpoints.status();
    const settings = await readCheckpointSettings(this.home);
    const store = await this.checkpoints.store();
    if (!store)
      return {
        status,
        path: '',
        bytes: 0,
        limitBytes: settings.limitBytes,
        maxFileBytes: settings.maxFileBytes,
        checkpoints: 0,
        sessions: 0,
        deletedSessions: 0,
      };
    const all = await store.listAll();
    const sessions = [...new Set(all.map((c) => c.session))];
    const deleted = await this.deletedSessions(sessions);
    return {
      status,
      path: store.places.gitDir,
      bytes: await store.sizeBytes(),
      limitBytes: settings.limitBytes,
      maxFileBytes: settings.maxFileBytes,
      checkpoints: all.length,
      sessions: sessions.length,
      deletedSessions: deleted.size,
    };
  }

  /** Clean up: every checkpoint of deleted sessions goes, then the cap is enforced and the store compacted. */
  async cleanUp(): Promise<CheckpointStorage & { freedBytes: number }> {
    await this.packing;
    const store = await this.checkpoints.require();
    const before = await store.sizeBytes();
    await this.enforceCap(store, true);
    const report = await this.report();
    return { ...report, freedBytes: Math.max(0, before - report.bytes) };
  }

  /**
   * Whether the cap is to be checked now (it measures the whole store: a walk of every object and ref folder). The
   * time of the last check is kept beside a local store too, so one-shot runs (`deft run`, each a process) check
   * it every CAP_CHECK_INTERVAL_MS, not each at its first turn.
   */
  private async capCheckDue(store: CheckpointStoreApi): Promise<boolean> {
    const now = this.now();
    const file = this.checkpoints.environment.kind === 'local' ? `${store.places.gitDir}${CAP_CHECKED}` : null;
    const kept = file ? Number((await readFile(file, 'utf8').catch(() => '')).trim()) || 0 : 0;
    const last = Math.max(this.lastCapCheck, kept <= now ? kept : 0);
    if (now - last <= CAP_CHECK_INTERVAL_MS) return false;
    this.lastCapCheck = now;
    if (file) await writeFile(file, `${now}\n`, { mode: 0o600 }).catch(() => {});
    return true;
  }

  private async enforceCap(store: CheckpointStoreApi, cleanUp: boolean): Promise<void> {
    const { limitBytes } = await readCheckpointSettings(this.home);
    if (!cleanUp && (await store.sizeBytes()) <= limitBytes) return;
    await store.locked(async () => {
      const all = await store.listAll();
      const deleted = await this.deletedSessions([...new Set(all.map((c) => c.session))]);
      const ofDeleted = all.filter((c) => deleted.has(c.session)).sort((a, b) => a.at - b.at);
      if (cleanUp) await store.drop(ofDeleted);
      else await dropUntil(store, ofDeleted, limitBytes);
      await store.compact(true);
      if ((await store.sizeBytes()) <= limitBytes) return;
      const live = all.filter((c) => !deleted.has(c.session));
      await dropUntil(store, oldestFirstKeepingNewest(live), limitBytes);
    });
  }

  private async deletedSessions(sessions: readonly string[]): Promise<Set<string>> {
    const root = workspaceSessionsDir(this.home, this.workspaceKey);
    const gone = await Promise.all(sessions.map(async (id) => ((await stat(join(root, id, 'meta.json')).catch(() => null)) ? null : id)));
    return new Set(gone.filter((id): id is string => id !== null));
  }
}

/** Drop checkpoints in order, a quarter at a time, compacting and measuring between, until the store fits. */
async function dropUntil(store: CheckpointStoreApi, ordered: readonly Checkpoint[], limitBytes: number): Promise<void> {
  let rest = [...ordered];
  while (rest.length && (await store.sizeBytes()) > limitBytes) {
    const batch = rest.slice(0, Math.max(1, Math.ceil(rest.length / 4)));
    rest = rest.slice(batch.length);
    await store.drop(batch);
    await store.compact(true);
  }
}

/** The checkpoints that may go, oldest first: all but each session's newest few. */
function oldestFirstKeepingNewest(checkpoints: readonly Checkpoint[]): Checkpoint[] {
  const bySession = new Map<string, Checkpoint[]>();
  for (const c of checkpoints) bySession.set(c.session, [...(bySession.get(c.session) ?? []), c]);
  const droppable = [...bySession.values()].flatMap((list) => list.sort((a, b) => a.seq - b.seq).slice(0, Math.max(0, list.length - KEEP_NEWEST)));
  return droppable.sort((a, b) => a.at - b.at);
}
