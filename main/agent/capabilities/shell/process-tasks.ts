import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { RunningTask, SessionTasks, TaskEnd, TaskKindAdapter, TaskRecord } from '#contract/tasks';
import { lastLines } from '#infra/tasks/task-record';
import { type KillableJob, killLeftovers, killTree } from '#infra/processes/kill-tree';
import { hasEnvMarker, jobProcesses } from '#infra/processes/process-table';
import { TASK_MARKER_VAR } from './shell';
import type { Environment } from '#contract/environment';
import type { SessionSandbox } from '#contract/sandbox';
import { type JobOutcome, ShellJob } from './shell-job';

/** Seconds a background command may run by default, and at most. */
export const BACKGROUND_DEFAULT_TIMEOUT_S = 600;
export const BACKGROUND_MAX_TIMEOUT_S = 86_400;

function statusOf(outcome: JobOutcome): Pick<TaskEnd, 'status' | 'reason'> {
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

function excerptText(job: ShellJob): string {
  const { head, tail } = job.excerpt();
  return tail || head;
}

/** A shell job as the session's task list drives it. */
function runningJob(job: ShellJob): RunningTask {
  return {
    get outputBytes() {
      return job.outputBytes;
    },
    tail: (lines) => lastLines(excerptText(job), lines),
    onOutput: (listener) => job.onOutput(() => listener()),
    stop: (why) => job.stop(why),
    done: job.done.then((outcome) => ({
      ...statusOf(outcome),
      endedAt: outcome.endedAt,
      exitCode: outcome.exitCode,
      outputBytes: outcome.outputBytes,
      tail: lastLines(excerptText(job), 20),
      shutdown: outcome.reason === 'shutdown',
    })),
  };
}

/** A process left by a Deft that died: found by the marker in its environment, then stopped. */
async function stopSurvivors(pid: number, id: string): Promise<void> {
  const marker = `${TASK_MARKER_VAR}=${id}`;
  const members = await jobProcesses({ pid, marker });
  const marked = await Promise.all(members.map(async (p) => ((await hasEnvMarker(p.pid, marker)) ? p : null)));
  for (const p of marked) if (p) await killTree({ pid: p.pid, marker }, 2_000);
}

const FOREGROUND_NOTE = 'foreground.json';

/** Where a running foreground command is noted: beside its output log. */
function foregroundNote(logPath: string): string {
  return join(dirname(logPath), FOREGROUND_NOTE);
}

/** The `bash` task kind: what a `bash` task that was running when Deft stopped may have left is stopped. */
export const processTaskKind: TaskKindAdapter = {
  kind: 'bash',
  onLost: async (record: TaskRecord) => {
    if (record.pid) await stopSurvivors(record.pid, record.id);
  },
};

export interface ProcessTaskOptions {
  maxOutputBytes?: number;
  /** Grace between SIGTERM and SIGKILL. */
  killGraceMs?: number;
  now?: () => number;
}

/** The shell commands of one session: started with their log where the session's tasks keep output, and made background tasks when needed. */
export class ProcessTasks {
  /** Every job started here, foreground ones too, so close() can stop what they left running. */
  private readonly spawned: KillableJob[] = [];
  private readonly adopted = new Set<string>();
  /** Foreground notes being written, by job id (removing one waits for its write). */
  private readonly notes = new Map<string, Promise<void>>();

  constructor(
    private readonly tasks: SessionTasks,
    private readonly environment: Environment,
    private readonly options: ProcessTaskOptions = {},
  ) {}

  /**
   * Start a command (as a foreground job: not listed until adopted), in the session's sandbox when given
   * one: `callId`/`turnId` say which call it runs for, so a connection it makes can be asked about there.
   */
  async spawn(command: string, cwd: string, context: { sandbox?: SessionSandbox; callId?: string; turnId?: string } = {}): Promise<ShellJob> {
    const id = this.tasks.newId('bash');
    const shell = this.environment.shell();
    // On a remote workspace the session's sandbox plans bubblewrap there (infra/sandbox/remote.ts).
    const spawn = context.sandbox
      ? await context.sandbox.plan({
          argv: [shell, '-c', command],
          cwd,
          env: { SHELL: shell, [TASK_MARKER_VAR]: id },
          label: command,
          ...(context.callId ? { callId: context.callId } : {}),
          ...(context.turnId ? { turnId: context.turnId } : {}),
        })
      : undefined;
    const job = await ShellJob.start({
      environment: this.environment,
      id,
      command,
      cwd,
      shell,
      logPath: this.tasks.outputPath(id),
      ...(spawn ? { spawn } : {}),
      ...(context.callId ? { callId: context.callId } : {}),
      ...(this.options.maxOutputBytes !== undefined ? { maxOutputBytes: this.options.maxOutputBytes } : {}),
      ...(this.options.killGraceMs !== undefined ? { killGraceMs: this.options.killGraceMs } : {}),
      ...(this.options.now ? { now: this.options.now } : {}),
    });
    if (job.pid !== undefined && this.environment.kind === 'local') {
      this.spawned.push({ pid: job.pid, marker: `${TASK_MARKER_VAR}=${id}` });
      // Until it ends or becomes a background task, a note on disk lets a later start stop what a killed Deft left running.
      // Not awaited: the caller must get the job (and listen to its output) before its first output arrives.
      const note = foregroundNote(job.logPath);
      const written = writeFile(note, JSON.stringify({ id, pid: job.pid, startedAt: job.startedAt }), { mode: 0o600 }).catch(() => {});
      this.notes.set(id, written);
      void Promise.all([written, job.done]).then(async () => {
        this.notes.delete(id);
        if (!this.adopted.has(id)) await rm(note, { force: true }).catch(() => {});
      });
    }
    return job;
  }

  /** Stop what foreground commands of a Deft that died left running (their notes are on disk), and forget them. */
  async stopOrphans(): Promise<number> {
    const dir = dirname(dirname(this.tasks.outputPath('bash-00000000')));
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    let stopped = 0;
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const note = join(dir, entry.name, FOREGROUND_NOTE);
      const record = await readFile(note, 'utf8').then(
        (text) => JSON.parse(text) as { id?: unknown; pid?: unknown },
        () => null,
      );
      if (!record) continue;
      if (typeof record.pid === 'number' && typeof record.id === 'string' && record.id === entry.name) {
        await stopSurvivors(record.pid, record.id);
        stopped++;
      }
      await rm(note, { force: true }).catch(() => {});
    }
    return stopped;
  }

  /** Make a job a background task: listed, persisted, stopped at its time limit, and reported when it ends. */
  adopt(job: ShellJob, description: string, timeoutSec: number | null): TaskRecord {
    this.adopted.add(job.id);
    void (this.notes.get(job.id) ?? Promise.resolve()).then(() => rm(foregroundNote(job.logPath), { force: true })).catch(() => {});
    return this.tasks.start(
      {
        id: job.id,
        kind: 'bash',
        description,
        command: job.command,
        cwd: job.cwd,
        ...(job.pid !== undefined ? { pid: job.pid } : {}),
        startedAt: job.startedAt,
        timeoutSec,
        outputPath: job.logPath,
      },
      runningJob(job),
    );
  }

  /** Every job started here (for close()'s leftovers, when another keeps them). */
  started(): KillableJob[] {
    return [...this.spawned];
  }

  /** Stop what finished commands left running (processes that left their group). */
  async close(): Promise<void> {
    await killLeftovers(this.spawned, this.options.killGraceMs);
  }
}
