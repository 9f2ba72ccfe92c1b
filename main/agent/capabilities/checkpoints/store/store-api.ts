import type { RecoveredRewind } from './journal';
import type { StorePlaces } from './places';
import type { RestoreProblem } from './restore';
import type { Capture, Checkpoint, CheckpointMeta, FileChange } from './store';

/**
 * What the checkpoints capability asks of a store, whichever machine it is on: `CheckpointStore` (this machine's
 * disk, under Deft's home) and `RemoteCheckpointStore` (a workspace on another machine, its store under Deft's folder
 * there, driven through the Environment). Capability code (workspace, rewind, history, review pane, storage) is
 * written against this, once for both.
 */
export interface CheckpointStoreApi {
  /** The workspace and the store's git folder (on the workspace's machine). */
  readonly places: StorePlaces;
  /** A rewind that was interrupted (a crash, a dropped connection) and finished when the store opened (journal.ts), or null. */
  readonly recovered: RecoveredRewind | null;
  /** Hold the store's lock for a sequence of operations (the other methods assume it is held where they write). */
  locked<T>(work: () => Promise<T>): Promise<T>;
  /** The workspace as it is now, as a tree in the store; `only` (workspace paths) narrows the look to those. */
  capture(only?: readonly string[]): Promise<Capture>;
  /** Record a capture as a checkpoint of `meta.session`. */
  record(capture: Capture, meta: CheckpointMeta): Promise<Checkpoint>;
  /** HEAD's tree (the latest capture recorded), or null in a store without one. */
  headTree(): Promise<string | null>;
  list(session: string): Promise<Checkpoint[]>;
  listAll(): Promise<Checkpoint[]>;
  /**
   * Each session's latest checkpoint time, read without listing every checkpoint (a store of many sessions asks for
   * one commit each); undefined where the store cannot tell so cheaply. Only a hint: a session missing is one without
   * checkpoints.
   */
  latestTimes?(): Promise<Map<string, number> | undefined>;
  /** What differs between two trees; `counts` adds line counts: of every file, or, a number N, of at least the first N. */
  changes(from: string, to: string, counts?: boolean | number): Promise<FileChange[]>;
  entry(tree: string, path: string): Promise<{ mode: string; blob: string } | null>;
  blob(id: string): Promise<Buffer>;
  /** Put these workspace paths back to what `tree` holds (a path it does not hold is deleted). */
  restore(tree: string, paths: readonly string[]): Promise<RestoreProblem[]>;
  drop(checkpoints: readonly Pick<Checkpoint, 'session' | 'seq'>[]): Promise<void>;
  compact(full: boolean): Promise<void>;
  looseObjects(): Promise<number>;
  sizeBytes(): Promise<number>;
  /** Whether the store still reads another repository's objects (a seeded local store), and ending that. */
  borrows(): Promise<boolean>;
  ownObjects(): Promise<void>;
  setMaxFileBytes(bytes: number): void;
  close(): void;
}
