import type { Environment } from '#contract/environment';
import type { AppEvent } from '#protocol';
import type { CommandActivity, CronJobInfo, TaskInfo } from '#protocol/schemas/tasks';
import type { SessionHandle } from '#contract/capability';
import type { SessionTasks } from '#contract/tasks';
import { localIso } from './cron/cron-expr';
import { type CronFire, CronScheduler, cronFireMessage } from './cron/scheduler';
import { type ProcessTaskOptions, ProcessTasks } from './process-tasks';
import type { ShellJob } from './shell-job';
import type { KillableJob } from '#infra/processes/kill-tree';

/** A foreground command of a running Bash call, which the user can stop or send to the background from its card. */
export interface ForegroundCommand {
  callId: string;
  job: ShellJob;
  activity: CommandActivity | null;
  stopOrBackground(action: 'stop' | 'background'): Promise<string | undefined>;
}

export interface ShellSessionOptions extends ProcessTaskOptions {
  /** The machine commands run on. */
  environment: Environment;
  emitApp(event: AppEvent): void;
  /** Fire scheduled prompts (not in one-shot hosts like the CLI, whose turn a fire would collide with). */
  scheduling?: boolean;
  /** The kill switch (DEFT_DISABLE_CRON=1): nothing is scheduled, and a job that comes due is reported, not run. */
  cronDisabled?: boolean;
  /** Share another session's running foreground commands (a sub-agent's parent). */
  foreground?: Map<string, ForegroundCommand>;
}

/**
 * What the shell capability keeps for one session: its commands (background ones are the session's
 * `bash` tasks), its scheduled prompts, and the foreground commands running now.
 */
export class ShellSession {
  readonly processes: ProcessTasks;
  readonly cron: CronScheduler;
  /** By call id; a sub-agent's are its parent's, so Stop and Move to background on its cards find them. */
  readonly foreground: Map<string, ForegroundCommand>;
  private closed = false;

  constructor(
    readonly handle: SessionHandle,
    private readonly options: ShellSessionOptions,
  ) {
    this.foreground = options.foreground ?? new Map();
    this.processes = new ProcessTasks(handle.tasks, options.environment, {
      ...(options.maxOutputBytes !== undefined ? { maxOutputBytes: options.maxOutputBytes } : {}),
      ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
    });
    this.cron = new CronScheduler({
      sessionDir: handle.dir,
      ...(options.now ? { now: options.now } : {}),
      isIdle: () => options.scheduling !== false && !handle.running && !this.closed,
      fire: (fire) => this.fireCron(fire),
      onChanged: (jobs: CronJobInfo[]) => options.emitApp({ type: 'cron.updated', sessionId: handle.id, jobs }),
      ...(options.cronDisabled ? { disabled: true } : {}),
      onSkipped: (job, dueAt) =>
        handle.emit({
          type: 'error',
          code: 'unsupported',
          message: `The scheduled prompt ${job.id} (${job.humanSchedule}) was due at ${localIso(dueAt)} but did not run: scheduled prompts are turned off (DEFT_DISABLE_CRON=1).`,
        }),
    });
  }

  /** The session's tasks, of every kind (background commands among them). */
  get tasks(): SessionTasks {
    return this.handle.tasks;
  }

  async load(): Promise<string[]> {
    // Foreground commands of a Deft that was killed (kill -9, a crash) may still run: stop them first.
    await this.processes.stopOrphans();
    const problems = await this.cron.load();
    void this.cron.tick();
    return problems;
  }

  /** The tasks the window lists: all but those the user cleared. */
  async taskInfos(): Promise<TaskInfo[]> {
    return Promise.all(
      this.tasks
        .list()
        .filter((record) => !record.cleared)
        .map((record) => this.tasks.infoWithTail(record)),
    );
  }

  activities(): CommandActivity[] {
    return [...this.foreground.values()].flatMap((c) => (c.activity ? [c.activity] : []));
  }

  /** A turn ended: a scheduled prompt that came due meanwhile fires now, if the session is idle. */
  async onTurnEnded(): Promise<void> {
    await this.cron.tick();
  }

  emitActivity(activity: CommandActivity): void {
    this.options.emitApp({ type: 'command.activity', sessionId: this.handle.id, activity });
  }

  /**
   * The session is let go of (nothing of it runs): stop its timers and hand over the commands it started, whose
   * leftovers (processes that left their group) are stopped when the core closes, as they would have been.
   */
  release(): KillableJob[] {
    this.closed = true;
    this.cron.close();
    return this.processes.started();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.cron.close();
    await Promise.allSettled([...this.foreground.values()].map((c) => c.job.stop('shutdown')));
    await this.processes.close();
  }

  private async fireCron(fire: CronFire): Promise<boolean> {
    const text = `Scheduled prompt (${fire.job.humanSchedule}${fire.coalescedCount > 1 ? `, ${fire.coalescedCount} missed fires coalesced` : ''}):\n${fire.job.prompt}`;
    return (await this.handle.startTurn({ text, modelText: cronFireMessage(fire, localIso), origin: 'cron' })) !== null;
  }
}
