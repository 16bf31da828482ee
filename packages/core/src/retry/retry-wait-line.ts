import { formatWait } from './retry-policy.js';

/**
 * A `--verbose` line before the wait for another attempt, in the provider's own
 * tag: `[http:agent] refund-001 attempt 1 failed; waiting 0.6 s (backoff) before attempt 2`.
 * `label` names the call that failed (core's `callLabel`).
 */
export function retryWaitLine(
  providerId: string,
  label: string,
  wait: { waitMs: number; retryAfter: boolean; failed: number },
): string {
  const why = wait.retryAfter ? 'Retry-After' : 'backoff';
  return `[${providerId}] ${label} failed; waiting ${formatWait(wait.waitMs)} (${why}) before attempt ${wait.failed + 1}`;
}
