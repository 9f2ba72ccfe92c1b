import type { TaskInfo } from '../../../../protocol/tasks';
import { hasEnvMarker, jobProcesses } from '../../capabilities/shell/process-table';
import { type KillableJob, killLeftovers, killTree } from '../../capabilities/shell/kill-tree';
import { TASK_MARKER_VAR } from '../../capabilities/shell/shell';
import { type JobOutcome, ShellJob } from '../../capabilities/shell/shell-job';
import { type TaskRecord, lastLines, loadRecords, newTaskId, readLog, saveRecord, taskLogPath } from './task-record';

/** Who stopped a task decides whether the model is told: not when it asked itself, quietly when the user did. */
export type StoppedBy = 'model' | 'user' | 'shutdown';

/** How the model learns that a task ended: `wake` starts a turn when idle; `quiet` waits for the next turn. */
export type NotifyMode = 'wake' | 'quiet';

export interface TaskManagerOptions {
  sessionDir: string;
  now?: () => number;
  /** Live state for the UI. */
  onStarted?(task: TaskInfo): void;
  onOutput?(taskId: string, tail: string, outputBytes: number): void;
  onEnded?(task: TaskInfo): void;
  /** A task ended and the model should hear of it (called once per task). */
  onNotify?(task: TaskRecord, tail: string, mode: NotifyMode): void;
  maxOutputBytes?: number;
  killGraceMs?: number;
  /** How often live output reaches the UI, at most. */
  outputIntervalMs?: number;
}

/** Seconds a background task may run by default, and at most. */
export const BACKGROUND_DEFAULT_TIMEOUT_S = 600;
export const BACKGROUND_MAX_TIMEOUT_S = 86_400;
const PANEL_LINES = 12;

function statusOf(outcome: JobOutcome): { status: TaskRecord['status']; reason: string } {
  const code = outcome.exitCode;
  switch (outcome.reason) {
    case 'exited':
      if (code === 0) return { status: 'completed', reason: 'exit code 0' };
      return { status: 'failed', reason: code === null ? `ended by signal ${outcome.signal ?? 'unknown'}` : `exit code ${code}` };
    case 'timed_out':
      return { status: 'timed_out', reason: 'stopped at its time limit' };
    case 'output_limit':
      return { status: 'failed', reason: 'stopped: it wrote more than 16 MiB of output' };
    case 'spawn_error':
      return { status: 'failed', reason: outcome.error ?? 'could not start' };
    case 'shutdown':
      return { status: 'killed', reason: 'stopped because Deft quit' };
    case 'interrupted':
    case 'killed':
      return { status: 'killed', reason: 'stopped' };
  }
}

/**
 * The background tasks of one session: shell jobs that outlive the tool call that started them.
 * Metadata is kept in `<session>/tasks/<id>.json`, output in `<session>/tasks/<id>/output.log`.
 */
export class TaskManager {
  private readonly records = new Map<string, TaskRecord>();
  private readonly jobs = new Map<string, ShellJob>();
  private readonly stoppedBy = new Map<string, { by: StoppedBy; reason?: string }>();
  private readonly writes = new Map<string, Promise<void>>();
  /** Every job started here, foreground ones too, so close() can stop what they left running. */
  private readonly spawned: KillableJob[] = [];
  private readonly now: () => number;
  private closed = false;

  constructor(private readonly options: TaskManagerOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Read the session's tasks. Those still `running` belong to a Deft that died: they become `lost`, and any process of theirs still alive is stopped. */
  async load(): Promise<{ lost: TaskRecord[]; problems: string[] }> {
    const { records, problems } = await loadRecords(this.options.sessionDir);
    const lost: TaskRecord[] = [];
    for (const record of records) {
      if (this.records.has(record.id)) continue;
      if (record.status === 'running') {
        Object.assign(record, { status: 'lost', reason: 'Deft stopped while it was running', endedAt: this.now() });
        lost.push(record);
        if (record.pid) void stopSurvivors(record.pid, record.id);
        this.persist(record);
      }
      this.records.set(record.id, record);
    }
    return { lost, problems };
  }

  /** Start a command with its log under this session (as a foreground job: not listed until adopted). */
  async spawn(command: string, cwd: string, env?: NodeJS.ProcessEnv): Promise<ShellJob> {
    let id = newTaskId();
    while (this.records.has(id) || this.jobs.has(id)) id = newTaskId();
    const job = await ShellJob.start({
      id,
      command,
      cwd,
      logPath: taskLogPath(this.options.sessionDir, id),
      ...(env ? { env } : {}),
      ...(this.options.maxOutputBytes !== undefined ? { maxOutputBytes: this.options.maxOutputBytes } : {}),
      ...(this.options.killGraceMs !== undefined ? { killGraceMs: this.options.killGraceMs } : {}),
      now: this.now,
    });
    if (job.pid !== undefined) this.spawned.push({ pid: job.pid, marker: `${TASK_MARKER_VAR}=${id}` });
    return job;
  }

  /** Make a job a background task: listed, persisted, stopped at its time limit, and reported when it ends. */
  adopt(job: ShellJob, description: string, timeoutSec: number | null): TaskRecord {
    const record: TaskRecord = {
      id: job.id,
      kind: 'bash',
      description,
      command: job.command,
      cwd: job.cwd,
      status: 'running',
      ...(job.pid !== undefined ? { pid: job.pid } : {}),
      startedAt: job.startedAt,
      timeoutSec,
      outputPath: job.logPath,
      outputBytes: job.outputBytes,
      notified: false,
    };
    this.records.set(record.id, record);
    this.jobs.set(record.id, job);
    this.persist(record);
    if (timeoutSec !== null) job.setDeadline(timeoutSec * 1000, () => void job.stop('timed_out'));
    this.options.onStarted?.(this.info(record));
    this.streamOutput(job);
    void job.done.then((outcome) => this.finish(record, job, outcome));
    if (this.closed) void this.stop(record.id, 'shutdown');
    return record;
  }

  get(id: string): TaskRecord | undefined {
    return this.records.get(id);
  }

  /** Tasks, newest first. */
  list(activeOnly = false): TaskRecord[] {
    return [...this.records.values()].filter((r) => !activeOnly || r.status === 'running').sort((a, b) => b.startedAt - a.startedAt);
  }

  get runningCount(): number {
    return this.jobs.size;
  }

  /** A task with the last lines of its output. */
  info(record: TaskRecord): TaskInfo {
    const { notified: _notified, ...rest } = record;
    const job = this.jobs.get(record.id);
    return { ...rest, outputBytes: job?.outputBytes ?? record.outputBytes, tail: job ? liveTail(job) : '' };
  }

  /** info() for finished tasks too, reading their tails from disk. */
  async infoWithTail(record: TaskRecord): Promise<TaskInfo> {
    const info = this.info(record);
    if (this.jobs.has(record.id)) return info;
    return { ...info, tail: await this.tail(record.id, PANEL_LINES) };
  }

  async tail(id: string, lines: number): Promise<string> {
    const job = this.jobs.get(id);
    if (job) return lastLines(job.excerpt().tail || job.excerpt().head, lines);
    const record = this.records.get(id);
    if (!record) return '';
    return lastLines((await readLog(record.outputPath, undefined, 8 * 1024)).text, lines);
  }

  readOutput(id: string, offset: number | undefined, length: number) {
    const record = this.records.get(id);
    if (!record) return null;
    return readLog(record.outputPath, offset, length).then((slice) => ({ ...slice, path: record.outputPath }));
  }

  /** Stop a running task's process tree. Resolves with the record once it has ended. */
  async stop(id: string, by: StoppedBy, reason?: string): Promise<TaskRecord | undefined> {
    const record = this.records.get(id);
    const job = this.jobs.get(id);
    if (!record || !job) return record;
    if (!this.stoppedBy.has(id)) this.stoppedBy.set(id, { by, ...(reason ? { reason } : {}) });
    await job.stop(by === 'shutdown' ? 'shutdown' : 'killed');
    await this.writes.get(id);
    return record;
  }

  /** Stop everything (the app is quitting or the session is being deleted). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.jobs.keys()].map((id) => this.stop(id, 'shutdown')));
    await killLeftovers(this.spawned, this.options.killGraceMs);
    await Promise.allSettled([...this.writes.values()]);
  }

  private streamOutput(job: ShellJob): void {
    if (!this.options.onOutput) return;
    const interval = this.options.outputIntervalMs ?? 300;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const unsubscribe = job.onOutput(() => {
      timer ??= setTimeout(() => {
        timer = undefined;
        if (job.running) this.options.onOutput?.(job.id, liveTail(job), job.outputBytes);
      }, interval);
    });
    void job.done.then(() => {
      clearTimeout(timer);
      unsubscribe();
    });
  }

  private async finish(record: TaskRecord, job: ShellJob, outcome: JobOutcome): Promise<void> {
    const stopped = this.stoppedBy.get(record.id);
    const { status, reason } = statusOf(outcome);
    let why = reason;
    if (stopped?.by === 'model') why = stopped.reason ?? 'stopped by TaskStop';
    else if (stopped?.by === 'user') why = stopped.reason ?? 'stopped by the user';
    Object.assign(record, {
      status,
      reason: why,
      endedAt: outcome.endedAt,
      exitCode: outcome.exitCode,
      outputBytes: outcome.outputBytes,
    });
    const tail = lastLines(excerptText(job), 20);
    this.jobs.delete(record.id);
    const mode: NotifyMode | null = stopped?.by === 'model' || stopped?.by === 'shutdown' || outcome.reason === 'shutdown' ? null : stopped?.by === 'user' ? 'quiet' : 'wake';
    if (!record.notified) {
      record.notified = true;
      if (mode) this.options.onNotify?.(record, tail, mode);
    }
    this.persist(record);
    this.options.onEnded?.({ ...this.info(record), tail: lastLines(tail, PANEL_LINES) });
  }

  private persist(record: TaskRecord): void {
    const snapshot = { ...record };
    const previous = this.writes.get(record.id) ?? Promise.resolve();
    const next = previous.then(() => saveRecord(this.options.sessionDir, snapshot)).catch(() => {});
    this.writes.set(record.id, next);
  }
}

function excerptText(job: ShellJob): string {
  const { head, tail } = job.excerpt();
  return tail || head;
}

function liveTail(job: ShellJob): string {
  return lastLines(excerptText(job), PANEL_LINES);
}

/** A task's processes that outlived the Deft that started them: found by the marker in their environment, then stopped. */
async function stopSurvivors(pid: number, id: string): Promise<void> {
  const marker = `${TASK_MARKER_VAR}=${id}`;
  const members = await jobProcesses({ pid, marker });
  const marked = await Promise.all(members.map(async (p) => ((await hasEnvMarker(p.pid, marker)) ? p : null)));
  for (const p of marked) if (p) await killTree({ pid: p.pid, marker }, 2_000);
}

