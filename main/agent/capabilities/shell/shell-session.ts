import type { CommandActivity, CronJobInfo, TaskInfo } from '../../../../protocol/tasks';
import type { AppEvent } from '../../../../protocol';
import type { SessionHandle } from '../../contract/feature';
import type { TurnOutcome } from '../../contract/feature';
import { type CronFire, CronScheduler, cronFireMessage } from './cron/scheduler';
import { localIso } from './cron/cron-expr';
import { type NotifyMode, TaskManager } from '../../infra/tasks/task-board';
import { lostTasksNotification, taskEndedNotification, taskEndedSummary } from '../../infra/tasks/notifications';
import type { ShellJob } from './shell-job';

/** A foreground command of a running Bash call, which the user can stop or send to the background from its card. */
export interface ForegroundCommand {
  callId: string;
  job: ShellJob;
  activity: CommandActivity | null;
  control(action: 'stop' | 'background'): Promise<string | undefined>;
}

export interface SessionTasksOptions {
  emitApp(event: AppEvent): void;
  now?: () => number;
  maxOutputBytes?: number;
  killGraceMs?: number;
  /** Fire scheduled prompts (not in one-shot hosts like the CLI, whose turn a fire would collide with). */
  scheduling?: boolean;
}

/**
 * Everything the shell capability keeps for one session: its background tasks, its scheduled prompts,
 * the foreground commands running now, and the delivery of "task ended" notifications to the model —
 * exactly once each: at the next step boundary of a running turn, or by starting a turn when idle.
 */
export class SessionTasks {
  readonly manager: TaskManager;
  readonly cron: CronScheduler;
  readonly foreground = new Map<string, ForegroundCommand>();
  /** A notification that should wake the agent was injected into a turn that has not taken another step since. */
  private wakePending = false;
  private closed = false;
  private taskEndWaiters: Array<() => void> = [];

  constructor(
    readonly handle: SessionHandle,
    private readonly options: SessionTasksOptions,
  ) {
    const sessionId = handle.id;
    const emit = (event: AppEvent) => options.emitApp(event);
    this.manager = new TaskManager({
      sessionDir: handle.dir,
      ...(options.maxOutputBytes !== undefined ? { maxOutputBytes: options.maxOutputBytes } : {}),
      ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
      onStarted: (task) => emit({ type: 'task.started', sessionId, task }),
      onOutput: (taskId, tail, outputBytes) => emit({ type: 'task.output', sessionId, taskId, tail, outputBytes }),
      onEnded: (task) => {
        emit({ type: 'task.ended', sessionId, task });
        // Its notification (and the turn that delivers it, if any) was asked for just before this.
        for (const resolve of this.taskEndWaiters.splice(0)) resolve();
      },
      onNotify: (task, tail, mode) => void this.notify(taskEndedNotification(task, tail), taskEndedSummary(task), mode),
    });
    this.cron = new CronScheduler({
      sessionDir: handle.dir,
      ...(options.now ? { now: options.now } : {}),
      isIdle: () => options.scheduling !== false && !handle.running && !this.closed,
      fire: (fire) => this.fireCron(fire),
      onChanged: (jobs: CronJobInfo[]) => emit({ type: 'cron.updated', sessionId, jobs }),
    });
  }

  async load(): Promise<string[]> {
    const { lost, problems } = await this.manager.load();
    if (lost.length) this.handle.inject(lostTasksNotification(lost));
    problems.push(...(await this.cron.load()));
    void this.cron.tick();
    return problems;
  }

  async tasks(): Promise<TaskInfo[]> {
    return Promise.all(this.manager.list().map((record) => this.manager.infoWithTail(record)));
  }

  /** Resolves when the next background task ends; undefined when none is running. */
  whenTaskEnds(): Promise<void> | undefined {
    if (this.closed || !this.manager.list(true).length) return undefined;
    return new Promise((resolve) => this.taskEndWaiters.push(resolve));
  }

  activities(): CommandActivity[] {
    return [...this.foreground.values()].flatMap((c) => (c.activity ? [c.activity] : []));
  }

  /** The running tasks, so the model always knows what it left running (changes only when one starts or ends). */
  promptSection(): string | undefined {
    const running = this.manager.list(true);
    if (!running.length) return undefined;
    const lines = running.map((t) => `- ${t.id}: ${t.description} (\`${t.command.length > 120 ? `${t.command.slice(0, 119)}…` : t.command}\`)`);
    return ['## Background tasks', 'Running now; you will be notified when each ends, so do not poll them:', ...lines].join('\n');
  }

  /** A model step is starting: everything injected before it is delivered now. */
  noteStep(): void {
    this.wakePending = false;
  }

  async onTurnEnded(outcome: TurnOutcome): Promise<void> {
    const wake = this.wakePending;
    this.wakePending = false;
    // The turn ended before reading a notification: it is still queued; a turn of its own delivers it.
    // A turn the user stopped (or that failed) is not restarted by Deft; the next one delivers it.
    if (wake && outcome.stopReason === 'end_turn' && !this.closed) {
      const started = await this.handle.startTurn({
        text: 'Background work finished',
        modelText: '<system-reminder>Background work finished while you were answering; its notification follows. React to it if it matters to the task.</system-reminder>',
        origin: 'task',
      });
      if (started) return;
    }
    await this.cron.tick();
  }

  emitActivity(activity: CommandActivity): void {
    this.options.emitApp({ type: 'command.activity', sessionId: this.handle.id, activity });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const resolve of this.taskEndWaiters.splice(0)) resolve();
    this.cron.close();
    await Promise.allSettled([...this.foreground.values()].map((c) => c.job.stop('shutdown')));
    await this.manager.close();
  }

  private async notify(modelText: string, summary: string, mode: NotifyMode): Promise<void> {
    if (this.closed) return;
    if (mode === 'wake' && !this.handle.running) {
      const started = await this.handle.startTurn({ text: summary, modelText, origin: 'task' });
      if (started) return;
    }
    this.handle.inject(modelText);
    if (this.handle.running && mode === 'wake') this.wakePending = true;
  }

  private async fireCron(fire: CronFire): Promise<boolean> {
    const text = `Scheduled prompt (${fire.job.humanSchedule}${fire.coalescedCount > 1 ? `, ${fire.coalescedCount} missed fires coalesced` : ''}):\n${fire.job.prompt}`;
    return (await this.handle.startTurn({ text, modelText: cronFireMessage(fire, localIso), origin: 'cron' })) !== null;
  }
}
