import { ProviderError } from '../errors/provider-error.js';

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
  return error instanceof ProviderError ? error.retryable : true;
}
