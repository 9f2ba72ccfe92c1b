import type { TaskInfo, TaskKind, TaskStatus } from '#protocol';
import type { Fact } from './facts';

export type { TaskKind } from '#protocol';

/**
 * A task as persisted in `<session>/tasks/<id>.json` (its output in `<session>/tasks/<id>/output.log`).
 * Ids are the kind and 8 base-36 characters: `bash-1a2b3c4d`, `agent-…`, `question-…`.
 */
export interface TaskRecord extends Omit<TaskInfo, 'tail'> {
  /** The model has been told how it ended (or did not need to be): never tell it twice. */
  notified: boolean;
  /** The user cleared it (finished) from the window's list: the panel no longer lists it; the model still can. */
  cleared?: boolean;
}

/** How a task ended, in its kind's words. */
export interface TaskEnd {
  status: Exclude<TaskStatus, 'running' | 'lost'>;
  /** Why, for the panel and the model ("exit code 2", "stopped at its time limit"). */
  reason: string;
  endedAt: number;
  exitCode?: number | null;
  outputBytes: number;
  /** The last lines of its output, for the model's notification. */
  tail: string;
  /** It ended because Deft is shutting down: nobody is told. */
  shutdown?: boolean;
}

/** Who stopped a task decides whether the model is told: not when it asked itself, quietly when the user did. */
export type StoppedBy = 'model' | 'user' | 'shutdown';

/** A running task of any kind, as the session's task list drives it: the kind-specific half of a task. */
export interface RunningTask {
  readonly outputBytes: number;
  /** The last `lines` lines of its output so far. */
  tail(lines: number): string;
  /** Called (often) as output arrives; returns the unsubscribe function. */
  onOutput(listener: () => void): () => void;
  /** Stop it (`timed_out`: its time limit ran out). Resolves once it has ended. */
  stop(why: 'killed' | 'shutdown' | 'timed_out'): Promise<unknown>;
  readonly done: Promise<TaskEnd>;
}

/** What a capability that runs tasks of one kind declares (Capability.taskKinds). */
export interface TaskKindAdapter {
  kind: TaskKind;
  /** A task of this kind was running when Deft last stopped: clean up what it may have left (its processes). */
  onLost?(record: TaskRecord): Promise<void>;
}

/** A task being started: what it is and where its output goes (`SessionTasks.outputPath`). */
export interface TaskStart {
  id: string;
  kind: TaskKind;
  description: string;
  command: string;
  cwd: string;
  pid?: number;
  startedAt: number;
  /** Stopped after this many seconds; null: no time limit. */
  timeoutSec: number | null;
  outputPath: string;
}

/**
 * A session's background tasks, of every kind: listed, persisted, stopped at their time limit, and
 * reported to the model exactly once when they end (at the next step of a running turn, or with a turn
 * of their own when the session is idle).
 */
export interface SessionTasks {
  /** A fresh id for a task of this kind. */
  newId(kind: TaskKind): string;
  /** Where a task's output log lives. */
  outputPath(id: string): string;
  /**
   * Hold a place for a task about to start, before anything is spawned for it; throws TaskLimitError (its message
   * names the setting) when the session already runs as many as it may. Call the returned function once the task
   * is started with `start` (or could not be).
   */
  reserve(): Promise<() => void>;
  /** Track a running task from now on (listed, persisted, announced). */
  start(task: TaskStart, running: RunningTask): TaskRecord;
  get(id: string): TaskRecord | undefined;
  /** Tasks, newest first. */
  list(activeOnly?: boolean): TaskRecord[];
  /** A task as the panel shows it, with the live tail of a running one. */
  info(record: TaskRecord): TaskInfo;
  /** info() for ended tasks too, their tails read from disk. */
  infoWithTail(record: TaskRecord): Promise<TaskInfo>;
  /**
   * Up to `length` bytes of a task's output from `offset` (default: its end) — a listed task's, or the log
   * a foreground command of the session left; null when there is neither.
   */
  readOutput(id: string, offset: number | undefined, length: number): Promise<{ text: string; offset: number; end: number; size: number; path: string } | null>;
  /** Stop a running task. Resolves with the record once it has ended (undefined for an unknown id). */
  stop(id: string, by: StoppedBy, reason?: string): Promise<TaskRecord | undefined>;
  /** Take finished tasks off the window's list for good (their records and logs stay); the ids cleared. */
  clear(ids: readonly string[]): string[];
  /** The tasks running now, as a fact the model is kept up to date on (said again after a compaction); no text when none runs. */
  runningFact(): Fact;
}

/** A session runs as many background tasks as it may; the message says how many, what to do and which setting raises it. */
export class TaskLimitError extends Error {
  override name = 'TaskLimitError';
}
