import { isProviderError } from '../errors/provider-error.js';
import { sleep as abortableSleep } from '../util/sleep.js';

/** How failed provider calls are retried (README, "Running": backoff and `Retry-After`). */
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

/**
 * The longest wait between attempts a `ProviderError.retryAfterMs` can ask
 * for: an error asking for more is not retried (see `retryAfterBeyondCap`).
 */
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
 * The wait `error`'s `Retry-After` asked for when it is longer than AgentV waits
 * (`MAX_RETRY_AFTER_MS`), else undefined. Such an error is not retried: an
 * attempt before the time the service named would be refused again (a quota
 * that resets in hours would cost every case its retries' waits for nothing),
 * and waiting that long would stall the run.
 */
export function retryAfterBeyondCap(error: unknown): number | undefined {
  const asked = askedWaitMs(error);
  return asked !== undefined && asked > MAX_RETRY_AFTER_MS ? asked : undefined;
}

/**
 * What a failure message adds for an error `retryAfterBeyondCap` kept from
 * being retried: `the service asked to wait 300 s before another attempt (Retry-After), …`.
 */
export function describeRetryAfterBeyondCap(error: unknown): string | undefined {
  const asked = retryAfterBeyondCap(error);
  if (asked === undefined) return undefined;
  return `the service asked to wait ${formatWait(asked)} before another attempt (Retry-After), longer than AgentV waits between attempts (${formatWait(MAX_RETRY_AFTER_MS)}), so it was not retried`;
}

/** A wait for messages: `0.6 s`, `2 s`, `300 s`. */
export function formatWait(ms: number): string {
  const seconds = ms / 1000;
  return `${seconds < 10 && !Number.isInteger(seconds) ? seconds.toFixed(1) : Math.round(seconds)} s`;
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
  const asked = askedWaitMs(error);
  if (asked !== undefined) return Math.min(asked, MAX_RETRY_AFTER_MS);
  return retryDelayMs(retry, policy, random);
}

/** The usable `retryAfterMs` of `error`, else undefined. */
function askedWaitMs(error: unknown): number | undefined {
  const asked = isProviderError(error) ? error.retryAfterMs : undefined;
  return asked !== undefined && Number.isFinite(asked) && asked >= 0 ? asked : undefined;
}

export interface WithRetriesOptions {
  /** Stops retrying; no attempt starts once it has fired. */
  signal?: AbortSignal;
  /** Called after every failed attempt, before the wait for the next one. */
  onFailure?: (error: unknown, attempt: number) => void | Promise<void>;
  /**
   * Called before each wait for another attempt: `failed` is the attempt that
   * failed (1-based), `waitMs` the wait, `retryAfter` true when the error's
   * `Retry-After` set it (else it is the backoff).
   */
  onWait?: (wait: { failed: number; waitMs: number; retryAfter: boolean }) => void;
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
 * retryable (`isRetryable`) or asks to wait longer than `MAX_RETRY_AFTER_MS`
 * (`retryAfterBeyondCap`), `policy.maxRetries` retries are used up, or the
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
    if (attempt > 0) {
      const waitMs = retryWaitMs(attempt, lastError, policy, options.random);
      const retryAfter = askedWaitMs(lastError) !== undefined;
      options.onWait?.({ failed: attempt, waitMs, retryAfter });
      await wait(waitMs, signal);
    }
    if (signal?.aborted) break;
    attempts = attempt + 1;
    try {
      return { ok: true, value: await fn(attempt), attempts };
    } catch (error) {
      lastError = error;
      await options.onFailure?.(error, attempts);
      if (!isRetryable(error) || retryAfterBeyondCap(error) !== undefined) break;
    }
  }
  return { ok: false, error: lastError, attempts };
}
