import { isProviderError } from '../errors/provider-error.js';
import { sleep as abortableSleep } from '../util/sleep.js';

/** How failed provider calls are retried (SPEC 5.3). */
export interface RetryPolicy {
  /** Retries after the first attempt; 2 means up to 3 attempts. */
  maxRetries: number;
  /** Delay before the first retry, in ms; doubled each retry. */
  baseDelayMs: number;
  /** Upper bound of one delay, in ms. */
  maxDelayMs: number;
}

export const DEFAULT_MAX_RETRIES = 2;

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: DEFAULT_MAX_RETRIES,
  baseDelayMs: 500,
  maxDelayMs: 10_000,
};

/** The longest wait a `ProviderError.retryAfterMs` can ask for. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Delay before retry number `retry` (1-based): exponential backoff with "equal
 * jitter" (half fixed, half random), so many failing cases do not retry in lockstep.
 */
export function retryDelayMs(retry: number, policy: RetryPolicy, random = Math.random): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}

/** Whether another attempt may succeed. Unknown errors (bugs, spawn failures) are retried too. */
export function isRetryable(error: unknown): boolean {
  return isProviderError(error) ? error.retryable : true;
}

/**
 * The wait before retry number `retry` after `error`: the error's `retryAfterMs`
 * when it sets one (capped at `MAX_RETRY_AFTER_MS`), else the backoff.
 */
export function retryWaitMs(
  retry: number,
  error: unknown,
  policy: RetryPolicy,
  random = Math.random,
): number {
  const asked = isProviderError(error) ? error.retryAfterMs : undefined;
  if (asked !== undefined && Number.isFinite(asked) && asked >= 0) {
    return Math.min(asked, MAX_RETRY_AFTER_MS);
  }
  return retryDelayMs(retry, policy, random);
}

export interface WithRetriesOptions {
  /** Stops retrying; no attempt starts once it has fired. */
  signal?: AbortSignal;
  /** Called after every failed attempt, before the wait for the next one. */
  onFailure?: (error: unknown, attempt: number) => void | Promise<void>;
  /** Waits between attempts; tests inject a recording one. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

/** How `withRetries` ended: the value of the attempt that succeeded, or the last error. */
export type RetryOutcome<T> =
  | { ok: true; value: T; attempts: number }
  /** `attempts` is 0 and `error` undefined when the signal fired before the first attempt. */
  | { ok: false; error: unknown; attempts: number };

/**
 * Calls `fn(attempt)` (0-based attempt) until it resolves, a failure is not
 * retryable (`isRetryable`), `policy.maxRetries` retries are used up, or the
 * signal fires. Waits `retryWaitMs` between attempts. Never throws what `fn`
 * throws: the outcome carries it. Errors thrown by `onFailure` propagate.
 */
export async function withRetries<T>(
  fn: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  options: WithRetriesOptions = {},
): Promise<RetryOutcome<T>> {
  const { signal } = options;
  const wait = options.sleep ?? abortableSleep;
  let lastError: unknown;
  let attempts = 0;
  for (let attempt = 0; attempt <= policy.maxRetries; attempt++) {
    if (attempt > 0) await wait(retryWaitMs(attempt, lastError, policy, options.random), signal);
    if (signal?.aborted) break;
    attempts = attempt + 1;
    try {
      return { ok: true, value: await fn(attempt), attempts };
    } catch (error) {
      lastError = error;
      await options.onFailure?.(error, attempts);
      if (!isRetryable(error)) break;
    }
  }
  return { ok: false, error: lastError, attempts };
}
