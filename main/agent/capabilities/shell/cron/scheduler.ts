import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { builtOnce } from '#protocol/helpers/built-once';
import type { CronJobInfo } from '#protocol/schemas/tasks';
import { writeFileAtomic } from '#infra/platform/files';
import { ToolInputError } from '#contract/tool';
import { type Schedule, describeSchedule, parseSchedule } from './cron-expr';
import { fireOffsetMs } from './jitter';

export const MAX_JOBS_PER_SESSION = 50;
export const MAX_PROMPT_BYTES = 8 * 1024;
/** Recurring jobs fire one last time (marked stale) after this, then are deleted. */
export const RECURRING_LIFETIME_MS = 7 * 24 * 3600_000;
const FIVE_YEARS_MS = 5 * 365 * 24 * 3600_000;
const ONE_SHOT_HORIZON_MS = 350 * 24 * 3600_000;
/** Retry a fire that could not start a turn (no model configured) this much later. */
const RETRY_MS = 60_000;
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Refuse an empty prompt or one over 8 KiB (counted in UTF-8 bytes). */
export function checkPrompt(prompt: string): void {
  const bytes = Buffer.byteLength(prompt, 'utf8');
  if (!prompt.trim()) throw new ToolInputError('The prompt is empty. Write what the scheduled turn should do.');
  if (bytes > MAX_PROMPT_BYTES)
    throw new ToolInputError(
      `The prompt is ${bytes} bytes; scheduled prompts are at most ${MAX_PROMPT_BYTES} bytes (8 KiB). Put long instructions in a file and have the prompt read it.`,
    );
}

/** A job's file, built the first time one is read (a session with none never builds it). */
const cronRecord = builtOnce(() =>
  z.object({
    id: z.string().regex(/^[0-9a-f]{8}$/),
    cron: z.string(),
    prompt: z.string(),
    recurring: z.boolean(),
    createdAt: z.number(),
    lastFiredAt: z.number().optional(),
  }),
);
type CronRecord = z.infer<ReturnType<typeof cronRecord>>;

/** One fire of a job, as the model reads it. */
export interface CronFire {
  job: CronJobInfo;
  /** How many scheduled times this fire stands for (more than 1 when fires were missed). */
  coalescedCount: number;
  /** The job's last fire: it has expired (recurring jobs live 7 days). */
  stale: boolean;
  scheduledAt: number;
}

export interface CronSchedulerOptions {
  sessionDir: string;
  now?: () => number;
  isIdle(): boolean;
  /** Start a turn for this fire; false when none could start (then it is retried). */
  fire(fire: CronFire): Promise<boolean>;
  onChanged?(jobs: CronJobInfo[]): void;
  /** Spread fires around their scheduled times (cron/jitter.ts); default true. */
  jitter?: boolean;
  /** The kill switch (DEFT_DISABLE_CRON=1): nothing is scheduled or fired; a job that comes due is reported instead. */
  disabled?: boolean;
  /** A job came due while the kill switch is on (said once per due time). */
  onSkipped?(job: CronJobInfo, dueAt: number): void;
}

/** What CronCreate says while the kill switch is on. */
export const CRON_DISABLED =
  'Scheduled prompts are turned off on this machine (DEFT_DISABLE_CRON=1), so nothing can be scheduled. Tell the user; unsetting DEFT_DISABLE_CRON turns them back on.';

/**
 * The scheduled prompts of one session. A due job fires only when the session is idle; fires missed
 * while Deft was closed or the session busy coalesce into one. Jobs live in `<session>/cron/<id>.json`.
 */
export class CronScheduler {
  private readonly jobs = new Map<string, { record: CronRecord; schedule: Schedule }>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private firing = false;
  private retryAt = 0;
  private closed = false;
  /** Due times already reported while the kill switch is on (job id → due time). */
  private readonly skipped = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly options: CronSchedulerOptions) {
    this.now = options.now ?? Date.now;
  }

  private get dir(): string {
    return join(this.options.sessionDir, 'cron');
  }

  async load(): Promise<string[]> {
    const problems: string[] = [];
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((n) => /^[0-9a-f]{8}\.json$/.test(n));
    } catch {
      return problems;
    }
    for (const name of names) {
      try {
        const record = cronRecord().parse(JSON.parse(await readFile(join(this.dir, name), 'utf8')));
        this.jobs.set(record.id, { record, schedule: parseSchedule(record.cron) });
      } catch (error) {
        problems.push(`cron/${name}: ${(error as Error).message}`);
      }
    }
    this.arm();
    return problems;
  }

  /** Refuse a job that cannot be scheduled (the kill switch, a bad schedule or prompt, the limit), with what to do instead. */
  check(input: { cron: string; prompt: string; recurring: boolean }): Schedule {
    if (this.options.disabled) throw new ToolInputError(CRON_DISABLED);
    const schedule = parseSchedule(input.cron);
    checkPrompt(input.prompt);
    if (this.jobs.size >= MAX_JOBS_PER_SESSION) {
      throw new ToolInputError(
        `This session already has ${MAX_JOBS_PER_SESSION} scheduled prompts, the most it can hold. Delete some with CronDelete (list them with CronList) first.`,
      );
    }
    const now = this.now();
    const first = schedule.next(now);
    if (first === null || first - now > FIVE_YEARS_MS)
      throw new ToolInputError(`"${input.cron}" never fires within the next 5 years (check the day and month, e.g. "0 0 30 2 *" never happens).`);
    if (!input.recurring && first - now > ONE_SHOT_HORIZON_MS) {
      throw new ToolInputError(
        `This one-shot schedule first fires on ${new Date(first).toString()}, more than 350 days away; if you meant a time today or soon, that time has already passed. Pick a time in the future.`,
      );
    }
    return schedule;
  }

  async create(input: { cron: string; prompt: string; recurring: boolean }): Promise<CronJobInfo> {
    const schedule = this.check(input);
    const now = this.now();
    let id = randomBytes(4).toString('hex');
    while (this.jobs.has(id)) id = randomBytes(4).toString('hex');
    const record: CronRecord = { id, cron: schedule.expr, prompt: input.prompt, recurring: input.recurring, createdAt: now };
    await this.save(record);
    this.jobs.set(id, { record, schedule });
    this.changed();
    return this.info(record, schedule);
  }

  async delete(id: string): Promise<boolean> {
    if (!this.jobs.delete(id)) return false;
    await rm(join(this.dir, `${id}.json`), { force: true });
    this.changed();
    return true;
  }

  list(): CronJobInfo[] {
    return [...this.jobs.values()]
      .map(({ record, schedule }) => this.info(record, schedule))
      .sort((a, b) => (a.nextFireAt ?? Infinity) - (b.nextFireAt ?? Infinity));
  }

  /** The scheduler's clock (the core's), for ages and staleness. */
  time(): number {
    return this.now();
  }

  /** Fire the earliest due job if the session is idle, then re-arm the timer. Call after every turn too. */
  async tick(): Promise<void> {
    if (this.closed || this.firing) return;
    const now = this.now();
    const due = [...this.jobs.values()]
      .map((job) => ({ job, at: this.dueAt(job.record, job.schedule) }))
      .filter((d): d is { job: { record: CronRecord; schedule: Schedule }; at: number } => d.at !== null && d.at <= now)
      .sort((a, b) => a.at - b.at)[0];
    if (!due || !this.options.isIdle() || now < this.retryAt) return this.arm();
    const { record, schedule } = due.job;
    if (this.options.disabled) {
      if (this.skipped.get(record.id) !== due.at) {
        this.skipped.set(record.id, due.at);
        this.options.onSkipped?.(this.info(record, schedule), due.at);
      }
      return this.arm();
    }
    const fire: CronFire = {
      job: this.info(record, schedule),
      coalescedCount: this.countFires(schedule, record.lastFiredAt ?? record.createdAt, now),
      stale: record.recurring && now - record.createdAt >= RECURRING_LIFETIME_MS,
      scheduledAt: due.at,
    };
    this.firing = true;
    try {
      if (!(await this.options.fire(fire))) {
        this.retryAt = now + RETRY_MS;
        return;
      }
      this.retryAt = 0;
      if (!record.recurring || fire.stale) {
        await this.delete(record.id);
      } else {
        record.lastFiredAt = now;
        await this.save(record);
        this.changed();
      }
    } finally {
      this.firing = false;
      this.arm();
    }
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  /** When the job fires next: its next scheduled time after the last fire, moved by its jitter (never before that last fire). */
  private dueAt(record: CronRecord, schedule: Schedule): number | null {
    const from = record.lastFiredAt ?? record.createdAt;
    const scheduled = schedule.next(from);
    if (scheduled === null || this.options.jitter === false) return scheduled;
    return Math.max(from, scheduled + fireOffsetMs(record, scheduled, schedule));
  }

  private countFires(schedule: Schedule, from: number, to: number): number {
    let count = 0;
    for (let at = schedule.next(from); at !== null && at <= to && count < 10_000; at = schedule.next(at)) count++;
    return Math.max(1, count);
  }

  private arm(): void {
    clearTimeout(this.timer);
    if (this.closed || !this.jobs.size) return;
    const now = this.now();
    let earliest = Infinity;
    for (const { record, schedule } of this.jobs.values()) earliest = Math.min(earliest, this.dueAt(record, schedule) ?? Infinity);
    if (this.retryAt > now) earliest = Math.max(earliest, this.retryAt);
    if (earliest === Infinity) return;
    // A due job waiting for the session to go idle is fired from onTurnEnded; poll rarely meanwhile.
    const delay = earliest <= now ? RETRY_MS : Math.min(MAX_TIMER_MS, earliest - now);
    this.timer = setTimeout(() => void this.tick(), delay);
    this.timer.unref?.();
  }

  private info(record: CronRecord, schedule: Schedule): CronJobInfo {
    const next = this.dueAt(record, schedule);
    return {
      id: record.id,
      cron: record.cron,
      humanSchedule: describeSchedule(record.cron),
      prompt: record.prompt,
      recurring: record.recurring,
      createdAt: record.createdAt,
      nextFireAt: next,
      ...(record.lastFiredAt !== undefined ? { lastFiredAt: record.lastFiredAt } : {}),
      ...(record.recurring ? { expiresAt: record.createdAt + RECURRING_LIFETIME_MS } : {}),
    };
  }

  private async save(record: CronRecord): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(join(this.dir, `${record.id}.json`), JSON.stringify(record, null, 2) + '\n', 0o600);
  }

  private changed(): void {
    this.options.onChanged?.(this.list());
  }
}

const attr = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The fired prompt as the model reads it: wrapped, so it knows a schedule sent it and not the user just now. */
export function cronFireMessage(fire: CronFire, isoTime: (ms: number) => string): string {
  const { job } = fire;
  const lines = [
    `<cron-fire jobId="${job.id}" cron="${attr(job.cron)}" schedule="${attr(job.humanSchedule)}" recurring="${job.recurring}" coalescedCount="${fire.coalescedCount}" stale="${fire.stale}" scheduledAt="${isoTime(fire.scheduledAt)}">`,
    `This prompt was scheduled earlier with CronCreate (job ${job.id}); it is not a new message from the user.`,
  ];
  if (fire.coalescedCount > 1) lines.push(`It was due ${fire.coalescedCount} times while Deft was closed or busy; those fires are coalesced into this one.`);
  if (fire.stale)
    lines.push(
      'The job has reached the 7-day limit for recurring schedules: this is its last fire and it has been deleted. Recreate it with CronCreate if it is still wanted.',
    );
  else if (!job.recurring) lines.push('It was a one-shot schedule and has been deleted.');
  lines.push('<prompt>', job.prompt, '</prompt>', '</cron-fire>');
  return lines.join('\n');
}
