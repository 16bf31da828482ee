import type { ResolvedTarget } from '../provider/resolved-target.js';
import { isRateLimited, RateLimiter } from './rate-limiter.js';
import type { RunState } from './run-state.js';

/**
 * The pacing of `target`'s calls in `run`: made at once for a target with
 * `requests_per_minute` or `tokens_per_minute`, else on its first HTTP 429 (`refused`),
 * so a target that is never refused costs its calls nothing.
 */
export function rateLimiterFor(
  run: RunState,
  target: ResolvedTarget,
  refused?: unknown,
): RateLimiter | undefined {
  const existing = run.limiters.get(target.name);
  if (existing !== undefined) return existing;
  const paced = target.requestsPerMinute !== undefined || target.tokensPerMinute !== undefined;
  if (!paced && (refused === undefined || !isRateLimited(refused))) return undefined;
  const limiter = new RateLimiter({
    requestsPerMinute: target.requestsPerMinute,
    tokensPerMinute: target.tokensPerMinute,
    // The run's default worker count (`DEFAULT_WORKERS`), which cannot be imported from here.
    maxConcurrency: run.options.workers ?? target.workers ?? 4,
  });
  run.limiters.set(target.name, limiter);
  return limiter;
}
