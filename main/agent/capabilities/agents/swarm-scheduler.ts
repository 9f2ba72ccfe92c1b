/** Limits of a swarm (the reference's figures). */
export const SWARM_LIMITS = {
  maxItems: 128,
  initialBurst: 5,
  launchIntervalMs: 700,
  backoffBaseMs: 3_000,
  shrinkCooldownMs: 2_000,
  growAfterQuietMs: 3 * 60_000,
};

export type SwarmLimits = typeof SWARM_LIMITS;

/** A swarm's concurrency cap: `DEFT_SWARM_MAX_CONCURRENCY` when set to a positive whole number, else none (the item count). */
export function swarmMaxConcurrency(items: number, env: NodeJS.ProcessEnv = process.env): number {
  const cap = Number(env.DEFT_SWARM_MAX_CONCURRENCY);
  return Number.isInteger(cap) && cap > 0 ? Math.min(cap, items) : items;
}

/** What one launch of an item ended with. */
export type JobResult = { kind: 'done' } | { kind: 'rate_limited' };

export interface SchedulerOptions<J> {
  jobs: readonly J[];
  /** Run one job; `attempt` counts its launches (1 = first). Resolves when it has ended. */
  launch(job: J, attempt: number): Promise<JobResult>;
  /** A rate-limited job was given up (it was the only one left): it fails. */
  giveUp(job: J): void;
  maxConcurrency: number;
  signal: AbortSignal;
  limits?: Partial<SwarmLimits>;
  now?: () => number;
  /** Called when the numbers change (for the window's progress). */
  onChange?(state: { queued: number; running: number; concurrency: number }): void;
}

/**
 * Runs a swarm's jobs: 5 at once, then one more every 700 ms while the concurrency allows. A job that hits a
 * rate limit goes back in the queue after 3 s, 6 s, 12 s … (its own backoff), and the concurrency shrinks by
 * one (never below one, at most once per 2 s); after 3 minutes without a rate limit it grows back by one.
 * A rate-limited job that is the only one left fails. Cancel (the signal) launches nothing more and
 * resolves once the running jobs have ended.
 */
export async function runScheduled<J>(options: SchedulerOptions<J>): Promise<void> {
  const limits = { ...SWARM_LIMITS, ...options.limits };
  const now = options.now ?? Date.now;
  const queue: Array<{ job: J; attempt: number; notBefore: number }> = options.jobs.map((job) => ({ job, attempt: 1, notBefore: 0 }));
  const max = Math.max(1, options.maxConcurrency);
  let concurrency = max;
  let running = 0;
  let launched = 0;
  let lastLaunch = -Infinity;
  let lastShrink = -Infinity;
  let lastRateLimit = now();
  let wake: (() => void) | null = null;
  const poke = () => wake?.();
  const report = () => options.onChange?.({ queued: queue.length, running, concurrency });
  options.signal.addEventListener('abort', poke, { once: true });

  const start = (entry: (typeof queue)[number]) => {
    running++;
    launched++;
    lastLaunch = now();
    void options
      .launch(entry.job, entry.attempt)
      .catch((): JobResult => ({ kind: 'done' }))
      .then((result) => {
        running--;
        if (result.kind === 'rate_limited' && !options.signal.aborted) {
          const t = now();
          lastRateLimit = t;
          if (t - lastShrink >= limits.shrinkCooldownMs && concurrency > 1) {
            concurrency = Math.max(1, Math.min(concurrency, running + 1) - 1);
            lastShrink = t;
          }
          if (running === 0 && queue.length === 0) options.giveUp(entry.job);
          else queue.push({ job: entry.job, attempt: entry.attempt + 1, notBefore: t + limits.backoffBaseMs * 2 ** (entry.attempt - 1) });
        }
        report();
        poke();
      });
  };

  report();
  while (!options.signal.aborted && (queue.length || running)) {
    const t = now();
    if (concurrency < max && t - lastRateLimit >= limits.growAfterQuietMs) {
      concurrency++;
      lastRateLimit = t;
      report();
    }
    let waitMs = Infinity;
    const readyAt = queue.findIndex((e) => e.notBefore <= t);
    if (readyAt >= 0 && running < concurrency) {
      const spacing = launched < limits.initialBurst ? 0 : lastLaunch + limits.launchIntervalMs - t;
      if (spacing <= 0) {
        start(queue.splice(readyAt, 1)[0]!);
        report();
        continue;
      }
      waitMs = spacing;
    } else if (readyAt < 0 && queue.length) {
      waitMs = Math.min(...queue.map((e) => e.notBefore)) - t;
    }
    if (concurrency < max) waitMs = Math.min(waitMs, lastRateLimit + limits.growAfterQuietMs - t);
    await new Promise<void>((resolve) => {
      const timer = Number.isFinite(waitMs) ? setTimeout(() => wake?.(), Math.max(0, waitMs)) : null;
      wake = () => {
        if (timer) clearTimeout(timer);
        wake = null;
        resolve();
      };
    });
  }
  options.signal.removeEventListener('abort', poke);
  // Cancelled: what runs is being stopped by the same signal; wait for it to end.
  while (running > 0) {
    await new Promise<void>((resolve) => {
      wake = () => {
        wake = null;
        resolve();
      };
    });
  }
  report();
}
