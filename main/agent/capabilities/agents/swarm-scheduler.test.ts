import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type JobResult, runScheduled, swarmMaxConcurrency } from './swarm-scheduler';

/** Jobs that end when the test says so, recording when each launch happened (on the fake clock). */
function controllableJobs(count: number) {
  const launches: Array<{ job: number; attempt: number; at: number }> = [];
  const finishers = new Map<string, (result: JobResult) => void>();
  const launch = (job: number, attempt: number) =>
    new Promise<JobResult>((resolve) => {
      launches.push({ job, attempt, at: Date.now() });
      finishers.set(`${job}:${attempt}`, resolve);
    });
  const finish = (job: number, attempt: number, result: JobResult = { kind: 'done' }) => finishers.get(`${job}:${attempt}`)!(result);
  return { jobs: Array.from({ length: count }, (_, i) => i), launches, launch, finish };
}

describe('swarm scheduling', () => {
  beforeEach(() => void vi.useFakeTimers({ now: 0 }));
  afterEach(() => void vi.useRealTimers());

  it('starts 5 at once, then one more every 700 ms', async () => {
    const { jobs, launches, launch, finish } = controllableJobs(8);
    const done = runScheduled({ jobs, launch, giveUp: () => {}, maxConcurrency: 8, signal: new AbortController().signal });
    await vi.advanceTimersByTimeAsync(0);
    expect(launches.map((l) => l.at)).toEqual([0, 0, 0, 0, 0]);
    await vi.advanceTimersByTimeAsync(699);
    expect(launches).toHaveLength(5);
    await vi.advanceTimersByTimeAsync(1);
    expect(launches).toHaveLength(6);
    await vi.advanceTimersByTimeAsync(1400);
    expect(launches.map((l) => l.at)).toEqual([0, 0, 0, 0, 0, 700, 1400, 2100]);
    for (const job of jobs) finish(job, 1);
    await done;
  });

  it('requeues a rate-limited job with a doubling backoff and shrinks the concurrency, at most once per 2 s; grows back after 3 quiet minutes', async () => {
    const { jobs, launches, launch, finish } = controllableJobs(3);
    const states: number[] = [];
    const done = runScheduled({
      jobs,
      launch,
      giveUp: () => {},
      maxConcurrency: 3,
      signal: new AbortController().signal,
      onChange: (s) => states.push(s.concurrency),
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(launches).toHaveLength(3);
    finish(0, 1, { kind: 'rate_limited' });
    await vi.advanceTimersByTimeAsync(0);
    expect(states.at(-1)).toBe(2);
    finish(1, 1, { kind: 'rate_limited' });
    await vi.advanceTimersByTimeAsync(0);
    // A second limit within 2 s does not shrink it again.
    expect(states.at(-1)).toBe(2);
    await vi.advanceTimersByTimeAsync(3_000);
    // Its backoff is over (3 s), but only two may run: job 0 goes again, job 1 waits.
    expect(launches.filter((l) => l.attempt === 2).map((l) => l.job)).toEqual([0]);
    finish(0, 2, { kind: 'rate_limited' });
    await vi.advanceTimersByTimeAsync(0);
    expect(states.at(-1)).toBe(1);
    finish(2, 1);
    await vi.advanceTimersByTimeAsync(0);
    expect(launches.filter((l) => l.attempt === 2).map((l) => l.job)).toEqual([0, 1]);
    finish(1, 2);
    // Job 0's second backoff is 6 s.
    await vi.advanceTimersByTimeAsync(5_999);
    expect(launches.some((l) => l.job === 0 && l.attempt === 3)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(launches.some((l) => l.job === 0 && l.attempt === 3)).toBe(true);
    await vi.advanceTimersByTimeAsync(3 * 60_000);
    expect(states.at(-1)).toBe(2);
    finish(0, 3);
    await done;
  });

  it('gives up a rate-limited job when it is the only one left, and stops launching when cancelled', async () => {
    const { jobs, launches, launch, finish } = controllableJobs(7);
    const given: number[] = [];
    const controller = new AbortController();
    const done = runScheduled({ jobs: jobs.slice(0, 1), launch, giveUp: (job) => given.push(job), maxConcurrency: 1, signal: new AbortController().signal });
    await vi.advanceTimersByTimeAsync(0);
    finish(0, 1, { kind: 'rate_limited' });
    await done;
    expect(given).toEqual([0]);

    const more = runScheduled({ jobs: jobs.slice(1), launch, giveUp: () => {}, maxConcurrency: 6, signal: controller.signal });
    await vi.advanceTimersByTimeAsync(0);
    const started = launches.length;
    controller.abort();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(launches.length).toBe(started);
    for (const l of launches.slice(1)) finish(l.job, l.attempt);
    await more;
  });

  it('caps the concurrency with DEFT_SWARM_MAX_CONCURRENCY', () => {
    expect(swarmMaxConcurrency(20, {})).toBe(20);
    expect(swarmMaxConcurrency(20, { DEFT_SWARM_MAX_CONCURRENCY: '4' })).toBe(4);
    expect(swarmMaxConcurrency(3, { DEFT_SWARM_MAX_CONCURRENCY: '4' })).toBe(3);
    expect(swarmMaxConcurrency(20, { DEFT_SWARM_MAX_CONCURRENCY: 'lots' })).toBe(20);
  });
});
