import { describe, expect, it } from 'vitest';
import { defaultRetryPolicy, retryDelay, sleep } from './retry';

describe('retryDelay', () => {
  it('grows exponentially and is capped', () => {
    const p = { ...defaultRetryPolicy, jitter: 0 };
    expect([1, 2, 3, 4, 5, 6, 7].map((a) => retryDelay(a, p, undefined))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });
  it('applies jitter within ±25%', () => {
    expect(retryDelay(1, defaultRetryPolicy, undefined, () => 0)).toBe(750);
    expect(retryDelay(1, defaultRetryPolicy, undefined, () => 1)).toBe(1250);
  });
  it('honours Retry-After', () => {
    expect(retryDelay(1, defaultRetryPolicy, 7000)).toBe(7000);
  });
});

describe('sleep', () => {
  it('rejects as soon as the signal aborts', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const pending = sleep(10_000, controller.signal);
    setTimeout(() => controller.abort(new Error('stop')), 10);
    await expect(pending).rejects.toThrow('stop');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
