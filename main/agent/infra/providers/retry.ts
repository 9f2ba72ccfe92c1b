import type { ErrorInfo } from '#protocol';
import { ProviderError } from './errors';
import type { ChatProvider, StepCallbacks, StepRequest, StepResult } from '#contract/model';

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

/**
 * The wait before a retry, which the user can cut short ("Retry now"). One per session: a turn waits on at most one
 * retry at a time.
 */
export class RetryWait {
  private wake: (() => void) | null = null;

  /** Resolve after `ms`, or at once when `now()` is called; reject when the signal aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    const early = new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    const slept = sleep(ms, signal);
    return Promise.race([slept, early]).finally(() => {
      this.wake = null;
    });
  }

  /** End the current wait; false when nothing is waiting. */
  now(): boolean {
    if (!this.wake) return false;
    this.wake();
    return true;
  }
}

/** How a model call with retries ended. `partial` is the text streamed before a cancel. */
export type StepOutcome = { kind: 'ok'; result: StepResult } | { kind: 'cancelled'; partial: string } | { kind: 'failed'; error: ErrorInfo };

export interface StepRetryOptions {
  policy: RetryPolicy;
  signal: AbortSignal;
  /** What the call is for, in the message of an unexpected error ("talking to the model"). */
  purpose: string;
  callbacks?: Partial<StepCallbacks>;
  /** A transient failure will be retried after `delayMs`. */
  onRetry?(attempt: number, delayMs: number, error: ProviderError): void;
  /** Where the wait before a retry happens, when the user may end it early. */
  wait?: RetryWait;
  random?: () => number;
}

/**
 * One model call, retried on transient provider errors as the policy allows. Never throws: the call
 * succeeds, is cancelled (the signal aborted), or fails with the error to show.
 */
export async function stepWithRetry(
  provider: ChatProvider,
  request: () => Promise<StepRequest> | StepRequest,
  options: StepRetryOptions,
): Promise<StepOutcome> {
  const { signal, policy } = options;
  for (let attempt = 1; ; attempt++) {
    let partial = '';
    try {
      if (signal.aborted) return { kind: 'cancelled', partial: '' };
      const result = await provider.step(await request(), {
        onText: (text) => {
          partial += text;
          options.callbacks?.onText?.(text);
        },
        onThinking: (text) => options.callbacks?.onThinking?.(text),
        onNote: (message) => options.callbacks?.onNote?.(message),
        onToolCall: (name) => options.callbacks?.onToolCall?.(name),
      });
      return { kind: 'ok', result };
    } catch (error) {
      if (signal.aborted) return { kind: 'cancelled', partial };
      if (!(error instanceof ProviderError)) {
        return {
          kind: 'failed',
          error: { code: 'internal', message: `Unexpected error while ${options.purpose}: ${(error as Error)?.message ?? String(error)}` },
        };
      }
      const decision = retryDecision(error, attempt, policy, options.random);
      if ('error' in decision) return { kind: 'failed', error: decision.error };
      options.onRetry?.(attempt, decision.delayMs, error);
      try {
        await (options.wait ? options.wait.sleep(decision.delayMs, signal) : sleep(decision.delayMs, signal));
      } catch {
        return { kind: 'cancelled', partial: '' };
      }
    }
  }
}
