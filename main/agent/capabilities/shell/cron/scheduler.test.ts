import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { localIso } from './cron-expr';
import { type CronFire, CronScheduler, type CronSchedulerOptions, MAX_JOBS_PER_SESSION, RECURRING_LIFETIME_MS, cronFireMessage } from './scheduler';
import { fireOffsetMs } from './jitter';
import { parseSchedule } from './cron-expr';

let dir: string;
let clock: number;
let idle: boolean;
let fired: CronFire[];
let accept: boolean;
const schedulers: CronScheduler[] = [];

/** A scheduler on the test's clock; exact times (no jitter) unless `options` say otherwise. */
function scheduler(options: Partial<CronSchedulerOptions> = {}): CronScheduler {
  const s = new CronScheduler({
    sessionDir: dir,
    now: () => clock,
    isIdle: () => idle,
    fire: async (fire) => {
      if (!accept) return false;
      fired.push(fire);
      return true;
    },
    jitter: false,
    ...options,
  });
  schedulers.push(s);
  return s;
}

beforeEach(async () => {
  dir = await tempDir('deft-cron-');
  clock = new Date('2026-03-02T08:00:00').getTime();
  idle = true;
  accept = true;
  fired = [];
});
afterEach(async () => {
  for (const s of schedulers.splice(0)) s.close();
  await rm(dir, { recursive: true, force: true });
});

const minutes = (n: number) => n * 60_000;

describe('cron scheduler', () => {
  it('fires a due job when idle, with its schedule in the envelope', async () => {
    const s = scheduler();
    const job = await s.create({ cron: '*/5 * * * *', prompt: 'check the build', recurring: true });
    expect(job).toMatchObject({ humanSchedule: 'every 5 minutes', nextFireAt: clock + minutes(5) });
    await s.tick();
    expect(fired).toHaveLength(0);
    clock += minutes(5);
    await s.tick();
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({ coalescedCount: 1, stale: false, job: { id: job.id } });
    const message = cronFireMessage(fired[0]!, localIso);
    expect(message).toMatch(
      new RegExp(`^<cron-fire jobId="${job.id}" cron="\\*/5 \\* \\* \\* \\*" schedule="every 5 minutes" recurring="true" coalescedCount="1" stale="false"`),
    );
    expect(message).toContain('<prompt>\ncheck the build\n</prompt>\n</cron-fire>');
    expect(message).toContain('not a new message from the user');
    await s.tick();
    expect(fired).toHaveLength(1);
    expect(s.list()[0]!.nextFireAt).toBe(clock + minutes(5));
  });

  it('waits while the session is busy, then coalesces missed fires into one', async () => {
    const s = scheduler();
    await s.create({ cron: '*/5 * * * *', prompt: 'p', recurring: true });
    idle = false;
    clock += minutes(17);
    await s.tick();
    expect(fired).toHaveLength(0);
    idle = true;
    await s.tick();
    expect(fired).toHaveLength(1);
    expect(fired[0]!.coalescedCount).toBe(3);
    expect(cronFireMessage(fired[0]!, localIso)).toContain('due 3 times');
    await s.tick();
    expect(fired).toHaveLength(1);
  });

  it('fires a one-shot once, then deletes it', async () => {
    const s = scheduler();
    await s.create({ cron: '30 8 * * *', prompt: 'once', recurring: false });
    clock += minutes(31);
    await s.tick();
    clock += 24 * 60 * 60_000;
    await s.tick();
    expect(fired).toHaveLength(1);
    expect(s.list()).toEqual([]);
    expect(await readdir(join(dir, 'cron'))).toEqual([]);
  });

  it('retries a fire that could not start a turn', async () => {
    const s = scheduler();
    await s.create({ cron: '*/5 * * * *', prompt: 'p', recurring: true });
    clock += minutes(5);
    accept = false;
    await s.tick();
    accept = true;
    await s.tick();
    expect(fired).toHaveLength(0);
    clock += minutes(1);
    await s.tick();
    expect(fired).toHaveLength(1);
  });

  it('expires recurring jobs after 7 days: one last fire, marked stale, then deleted', async () => {
    const s = scheduler();
    await s.create({ cron: '0 9 * * *', prompt: 'daily', recurring: true });
    clock += RECURRING_LIFETIME_MS + minutes(90);
    await s.tick();
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({ stale: true, coalescedCount: 8 });
    expect(cronFireMessage(fired[0]!, localIso)).toContain('last fire');
    expect(s.list()).toEqual([]);
  });

  it('persists jobs and resumes them in a new scheduler (a reopened session)', async () => {
    const first = scheduler();
    const job = await first.create({ cron: '0 * * * *', prompt: 'hourly', recurring: true });
    clock += minutes(60);
    await first.tick();
    first.close();
    clock += minutes(60 * 3 + 5);
    const second = scheduler();
    expect(await second.load()).toEqual([]);
    expect(second.list()).toMatchObject([{ id: job.id, prompt: 'hourly', lastFiredAt: clock - minutes(60 * 3 + 5) }]);
    await second.tick();
    expect(fired.map((f) => f.coalescedCount)).toEqual([1, 3]);
  });

  it('enforces the limits: 50 jobs, 8 KiB prompts, dates that come', async () => {
    const s = scheduler();
    await expect(s.create({ cron: '* * * * *', prompt: 'é'.repeat(4097), recurring: true })).rejects.toThrow(
      /8194 bytes; scheduled prompts are at most 8192 bytes/,
    );
    await expect(s.create({ cron: '0 0 30 2 *', prompt: 'p', recurring: true })).rejects.toThrow(/never fires within the next 5 years/);
    await expect(s.create({ cron: '0 7 2 3 *', prompt: 'p', recurring: false })).rejects.toThrow(/more than 350 days away/);
    await expect(s.create({ cron: '* * * * *', prompt: '  ', recurring: true })).rejects.toThrow(/prompt is empty/);
    for (let i = 0; i < MAX_JOBS_PER_SESSION; i++) await s.create({ cron: `${i % 60} * * * *`, prompt: `p${i}`, recurring: true });
    await expect(s.create({ cron: '* * * * *', prompt: 'one more', recurring: true })).rejects.toThrow(/already has 50 scheduled prompts/);
    expect(await s.delete(s.list()[0]!.id)).toBe(true);
    await expect(s.create({ cron: '* * * * *', prompt: 'fits now', recurring: true })).resolves.toMatchObject({ prompt: 'fits now' });
  });

  it('spreads fires: recurring jobs up to 10 % of the period late (at most 15 min), one-shots on :00 or :30 up to 90 s early', async () => {
    const hourly = parseSchedule('0 * * * *');
    const at = new Date('2026-03-02T09:00:00').getTime();
    expect(fireOffsetMs({ id: '00000000', recurring: true }, at, hourly)).toBe(0);
    expect(fireOffsetMs({ id: '80000000', recurring: true }, at, hourly)).toBe(minutes(3));
    expect(fireOffsetMs({ id: 'ffffffff', recurring: true }, at, hourly)).toBeLessThan(minutes(6));
    expect(fireOffsetMs({ id: 'ffffffff', recurring: true }, at, parseSchedule('0 9 * * *'))).toBeLessThan(minutes(15));
    expect(fireOffsetMs({ id: 'ffffffff', recurring: true }, at, parseSchedule('0 9 * * *'))).toBeGreaterThan(minutes(14.9));
    expect(fireOffsetMs({ id: '80000000', recurring: false }, at, hourly)).toBe(-45_000);
    expect(fireOffsetMs({ id: '80000000', recurring: false }, new Date('2026-03-02T09:30:00').getTime(), hourly)).toBe(-45_000);
    expect(fireOffsetMs({ id: 'ffffffff', recurring: false }, new Date('2026-03-02T09:15:00').getTime(), hourly)).toBe(0);

    // The scheduler fires at the jittered time, and says so in nextFireAt.
    const s = scheduler({ jitter: true });
    const job = await s.create({ cron: '*/10 * * * *', prompt: 'p', recurring: true });
    const due = job.nextFireAt!;
    const scheduled = clock + minutes(10);
    expect(due - scheduled).toBe(fireOffsetMs(job, scheduled, parseSchedule('*/10 * * * *')));
    expect(due - scheduled).toBeLessThan(minutes(1));
    clock = due - 1;
    await s.tick();
    expect(fired).toHaveLength(0);
    clock = due;
    await s.tick();
    expect(fired).toHaveLength(1);
    const next = s.list()[0]!.nextFireAt!;
    expect(next - (scheduled + minutes(10))).toBe(due - scheduled);
  });

  it('with the kill switch on, refuses new jobs and reports (once) a job that comes due instead of firing it', async () => {
    const first = scheduler();
    const job = await first.create({ cron: '*/5 * * * *', prompt: 'p', recurring: true });
    first.close();
    const skipped: Array<[string, number]> = [];
    const s = scheduler({ disabled: true, onSkipped: (j, at) => void skipped.push([j.id, at]) });
    await s.load();
    expect(() => s.check({ cron: '@hourly', prompt: 'x', recurring: true })).toThrow(/turned off on this machine \(DEFT_DISABLE_CRON=1\)/);
    await expect(s.create({ cron: '@hourly', prompt: 'x', recurring: true })).rejects.toThrow(/DEFT_DISABLE_CRON=1/);
    clock += minutes(5);
    await s.tick();
    await s.tick();
    expect(fired).toEqual([]);
    expect(skipped).toEqual([[job.id, clock]]);
    expect(s.list()).toHaveLength(1);
  });
});
