import type { ErrorInfo } from '../../../../protocol';
import type { ProviderError } from './errors';

export interface RetryPolicy {
  /** Attempts per step, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** ±fraction of the delay chosen at random. */
  jitter: number;
  /** The longest Retry-After honoured; a longer one gives up. */
  maxRetryAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  jitter: 0.25,
  maxRetryAfterMs: 120_000,
};

/** Delay before attempt `attempt + 1` (attempt is 1-based): exponential with jitter, or Retry-After when given. */
export function retryDelay(attempt: number, policy: RetryPolicy, retryAfterMs: number | undefined, random: () => number = Math.random): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, policy.maxRetryAfterMs);
  const exponential = Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
  const spread = exponential * policy.jitter * (random() * 2 - 1);
  return Math.max(0, Math.round(exponential + spread));
}

/** After a failed attempt: wait `delayMs` and try again, or give up with this error (its message says how many attempts were made). */
export function retryDecision(error: ProviderError, attempt: number, policy: RetryPolicy, random?: () => number): { delayMs: number } | { error: ErrorInfo } {
  const retryAfter = error.options.retryAfterMs;
  const tooLong = retryAfter !== undefined && retryAfter > policy.maxRetryAfterMs;
  if (!error.retryable || attempt >= policy.maxAttempts || tooLong) {
    const gaveUp = error.retryable ? ` Gave up after ${attempt} attempt${attempt === 1 ? '' : 's'}.` : '';
    return { error: { code: error.code, message: error.message + gaveUp } };
  }
  return { delayMs: retryDelay(attempt, policy, retryAfter, random) };
}

/** Resolve after `ms`, or reject with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
