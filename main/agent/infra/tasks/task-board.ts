import { lstat } from 'node:fs/promises';
import type { AppEvent, TaskInfo } from '#protocol';
import { type Fact, reminder } from '#contract/facts';
import type { TurnOutcome, TurnPrompt } from '#contract/capability';
import {
  type RunningTask,
  type SessionTasks,
  type StoppedBy,
  type TaskEnd,
  type TaskKind,
  type TaskKindAdapter,
  TaskLimitError,
  type TaskRecord,
  type TaskStart,
} from '#contract/tasks';
import { DEFAULT_MAX_RUNNING_TASKS, MAX_RUNNING_SETTING } from './limits';
import { lostTasksNotification, taskEndedNotification, taskEndedSummary } from './notifications';
import { lastLines, loadRecords, newTaskId, readLog, saveRecord, taskLogPath } from './task-record';

const PANEL_LINES = 12;

/** How the model learns that a task ended: `wake` starts a turn when idle; `quiet` waits for the next turn. */
type NotifyMode = 'wake' | 'quiet';

/** What the board needs of its session: to tell the model, and to know whether a turn runs. */
export interface TaskBoardSession {
  readonly running: boolean;
  startTurn(prompt: TurnPrompt): Promise<string | null>;
  inject(text: string): void;
}

export interface TaskBoardOptions {
  sessionId: string;
  sessionDir: string;
  session: TaskBoardSession;
  emitApp(event: AppEvent): void;
  /** What each kind's capability declared (only `onLost` is needed of them here). */
  kinds?: ReadonlyMap<TaskKind, TaskKindAdapter>;
  now?: () => number;
  /** How often live output reaches the UI, at most. */
  outputIntervalMs?: number;
  /** A task ended (after its record is updated). */
  onEnded?(record: TaskRecord): void;
  /** How many tasks may run at once (read at each start; default DEFAULT_MAX_RUNNING_TASKS). */
  maxRunning?: () => Promise<number>;
}

/**
 * The background tasks of one session, of every kind. Metadata is kept in `<session>/tasks/<id>.json`,
 * output in `<session>/tasks/<id>/output.log`. The end of each task reaches the model exactly once: at
 * the next step boundary of a running turn, or by starting a turn when the session is idle.
 */
export class TaskBoard implements SessionTasks {
  private readonly records = new Map<string, TaskRecord>();
  private readonly running = new Map<string, RunningTask>();
  private readonly stoppedBy = new Map<string, { by: StoppedBy; reason?: string }>();
  private readonly writes = new Map<string, Promise<void>>();
  private readonly now: () => number;
  private closed = false;
  /** A notification that should wake the agent was injected into a turn that has not taken another step since. */
  private wakePending = false;
  private taskEndWaiters: Array<() => void> = [];
  /** Places held for tasks being started (their processes spawning). */
  private reserved = 0;

  constructor(private readonly options: TaskBoardOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Read the session's tasks. Those still `running` belong to a Deft that died: they become `lost`, their
   * kind cleans up what they left, and the model is told.
   */
  async load(): Promise<string[]> {
    const { records, problems } = await loadRecords(this.options.sessionDir);
    const lost: TaskRecord[] = [];
    for (const record of records) {
      if (this.records.has(record.id)) continue;
      if (record.status === 'running') {
        Object.assign(record, { status: 'lost', reason: 'Deft stopped while it was running', endedAt: this.now() });
        lost.push(record);
        void this.options.kinds
          ?.get(record.kind)
          ?.onLost?.(record)
          .catch(() => {});
        this.persist(record);
      }
      this.records.set(record.id, record);
    }
    if (lost.length) this.options.session.inject(lostTasksNotification(lost));
    return problems;
  }

  newId(kind: TaskKind): string {
    let id = newTaskId(kind);
    while (this.records.has(id)) id = newTaskId(kind);
    return id;
  }

  outputPath(id: string): string {
    return taskLogPath(this.options.sessionDir, id);
  }

  async reserve(): Promise<() => void> {
    const limit = (await this.options.maxRunning?.().catch(() => DEFAULT_MAX_RUNNING_TASKS)) ?? DEFAULT_MAX_RUNNING_TASKS;
    // Checked and taken with no await between: many calls of one step cannot all slip under the cap.
    if (this.running.size + this.reserved >= limit) {
      throw new TaskLimitError(
        `This session already runs ${this.running.size} background tasks, as many as it may at once (${limit}; ${MAX_RUNNING_SETTING} sets it). Wait for one to end, or stop one with TaskStop, then start this again.`,
      );
    }
    this.reserved++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.reserved--;
    };
  }

  start(task: TaskStart, running: RunningTask): TaskRecord {
    const record: TaskRecord = {
      id: task.id,
      kind: task.kind,
      description: task.description,
      command: task.command,
      cwd: task.cwd,
      status: 'running',
      ...(task.pid !== undefined ? { pid: task.pid } : {}),
      startedAt: task.startedAt,
      timeoutSec: task.timeoutSec,
      outputPath: task.outputPath,
      outputBytes: running.outputBytes,
      notified: false,
    };
    this.records.set(record.id, record);
    this.running.set(record.id, running);
    this.persist(record);
    let deadline: ReturnType<typeof setTimeout> | undefined;
    if (task.timeoutSec !== null) {
      deadline = setTimeout(() => void running.stop('timed_out'), task.timeoutSec * 1000);
      deadline.unref?.();
    }
    this.options.emitApp({ type: 'task.started', sessionId: this.options.sessionId, task: this.info(record) });
    const stopStreaming = this.streamOutput(record.id, running);
    void running.done.then((end) => {
      clearTimeout(deadline);
      stopStreaming();
      this.finish(record, end);
    });
    if (this.closed) void this.stop(record.id, 'shutdown');
    return record;
  }

  get(id: string): TaskRecord | undefined {
    return this.records.get(id);
  }

  list(activeOnly = false): TaskRecord[] {
    return [...this.records.values()].filter((r) => !activeOnly || r.status === 'running').sort((a, b) => b.startedAt - a.startedAt);
  }

  info(record: TaskRecord): TaskInfo {
    const { notified: _notified, cleared: _cleared, ...rest } = record;
    const running = this.running.get(record.id);
    return { ...rest, outputBytes: running?.outputBytes ?? record.outputBytes, tail: running ? running.tail(PANEL_LINES) : '' };
  }

  async infoWithTail(record: TaskRecord): Promise<TaskInfo> {
    const info = this.info(record);
    if (this.running.has(record.id)) return info;
    return { ...info, tail: lastLines((await readLog(record.outputPath, undefined, 8 * 1024)).text, PANEL_LINES) };
  }

  async readOutput(id: string, offset: number | undefined, length: number) {
    const path = this.records.get(id)?.outputPath ?? (await this.foregroundLog(id));
    if (!path) return null;
    return { ...(await readLog(path, offset, length)), path };
  }

  /** The log a foreground command left under this session (never listed as a task): a regular file, never a link. */
  private async foregroundLog(id: string): Promise<string | null> {
    const path = this.outputPath(id);
    try {
      return (await lstat(path)).isFile() ? path : null;
    } catch {
      return null;
    }
  }

  async stop(id: string, by: StoppedBy, reason?: string): Promise<TaskRecord | undefined> {
    const record = this.records.get(id);
    const running = this.running.get(id);
    if (!record || !running) return record;
    if (!this.stoppedBy.has(id)) this.stoppedBy.set(id, { by, ...(reason ? { reason } : {}) });
    await running.stop(by === 'shutdown' ? 'shutdown' : 'killed');
    await running.done;
    await this.writes.get(id);
    return record;
  }

  clear(ids: readonly string[]): string[] {
    const cleared: string[] = [];
    for (const id of ids) {
      const record = this.records.get(id);
      if (!record || record.status === 'running' || this.running.has(id)) continue;
      cleared.push(id);
      if (record.cleared) continue;
      record.cleared = true;
      this.persist(record);
    }
    return cleared;
  }

  runningFact(): Fact {
    const running = this.list(true);
    // The parent is notified when a task ends, not its sub-agents: they are never told of its tasks.
    if (!running.length) return { key: 'tasks', mainAgentOnly: true, text: null };
    // Oldest first, so a task starting adds a line at the end rather than reordering the list.
    const lines = running.reverse().map((t) => `- ${t.id}: ${t.description} (\`${t.command.length > 120 ? `${t.command.slice(0, 119)}…` : t.command}\`)`);
    return {
      key: 'tasks',
      mainAgentOnly: true,
      text: reminder(['Background tasks running now; you will be notified when each ends, so do not poll them:', ...lines].join('\n')),
    };
  }

  /** Resolves when the next task ends (and its notification has been delivered or queued); undefined when none runs. */
  whenTaskEnds(): Promise<void> | undefined {
    if (this.closed || !this.list(true).length) return undefined;
    return new Promise((resolve) => this.taskEndWaiters.push(resolve));
  }

  /** A model step is starting: everything injected before it is delivered now. */
  noteStep(): void {
    this.wakePending = false;
  }

  /**
   * A turn ended. If it ended before reading a notification that should wake the agent, a turn of its
   * own delivers it (a turn the user stopped, or that failed, is not restarted: the next one delivers it).
   */
  async onTurnEnded(outcome: TurnOutcome): Promise<void> {
    const wake = this.wakePending;
    this.wakePending = false;
    if (!wake || outcome.stopReason !== 'end_turn' || this.closed) return;
    await this.options.session.startTurn({
      text: 'Background work finished',
      modelText:
        '<system-reminder>Background work finished while you were answering; its notification follows. React to it if it matters to the task.</system-reminder>',
      origin: 'task',
    });
  }

  /** Stop every task (the app is quitting or the session is being deleted). */
  async close(): Promise<void> {
    this.closed = true;
    for (const resolve of this.taskEndWaiters.splice(0)) resolve();
    await Promise.allSettled([...this.running.keys()].map((id) => this.stop(id, 'shutdown')));
    await Promise.allSettled([...this.writes.values()]);
  }

  private streamOutput(id: string, running: RunningTask): () => void {
    const interval = this.options.outputIntervalMs ?? 300;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const unsubscribe = running.onOutput(() => {
      timer ??= setTimeout(() => {
        timer = undefined;
        if (this.running.has(id))
          this.options.emitApp({
            type: 'task.output',
            sessionId: this.options.sessionId,
            taskId: id,
            tail: running.tail(PANEL_LINES),
            outputBytes: running.outputBytes,
          });
      }, interval);
    });
    return () => {
      clearTimeout(timer);
      unsubscribe();
    };
  }

  private finish(record: TaskRecord, end: TaskEnd): void {
    const stopped = this.stoppedBy.get(record.id);
    let why = end.reason;
    if (stopped?.by === 'model') why = stopped.reason ?? 'stopped by TaskStop';
    else if (stopped?.by === 'user') why = stopped.reason ?? 'stopped by the user';
    Object.assign(record, {
      status: end.status,
      reason: why,
      endedAt: end.endedAt,
      ...(end.exitCode !== undefined ? { exitCode: end.exitCode } : {}),
      outputBytes: end.outputBytes,
    });
    this.running.delete(record.id);
    const mode: NotifyMode | null = stopped?.by === 'model' || stopped?.by === 'shutdown' || end.shutdown ? null : stopped?.by === 'user' ? 'quiet' : 'wake';
    if (!record.notified) {
      record.notified = true;
      if (mode) void this.notify(taskEndedNotification(record, end.tail), taskEndedSummary(record), mode);
    }
    this.persist(record);
    this.options.emitApp({ type: 'task.ended', sessionId: this.options.sessionId, task: { ...this.info(record), tail: lastLines(end.tail, PANEL_LINES) } });
    this.options.onEnded?.(record);
    // Its notification (and the turn that delivers it, if any) was asked for just before this.
    for (const resolve of this.taskEndWaiters.splice(0)) resolve();
  }

  private async notify(modelText: string, summary: string, mode: NotifyMode): Promise<void> {
    if (this.closed) return;
    const session = this.options.session;
    if (mode === 'wake' && !session.running) {
      const started = await session.startTurn({ text: summary, modelText, origin: 'task' });
      if (started) return;
    }
    session.inject(modelText);
    if (session.running && mode === 'wake') this.wakePending = true;
  }

  private persist(record: TaskRecord): void {
    const snapshot = { ...record };
    const previous = this.writes.get(record.id) ?? Promise.resolve();
    const next = previous.then(() => saveRecord(this.options.sessionDir, snapshot)).catch(() => {});
    this.writes.set(record.id, next);
  }
}
