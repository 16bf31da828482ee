import { isProviderError } from '../errors/provider-error.js';
import type { TokenUsage } from '../provider/provider-response.js';
import { retryAfterBeyondCap } from '../retry/retry-policy.js';
import { sleep } from '../util/sleep.js';
import { tokensOf } from './case-budget.js';

export interface RateLimiterOptions {
  /** Calls started per minute at most, spread evenly (one every 60000 / n ms). */
  requestsPerMinute?: number | undefined;
  /** Tokens spent per minute at most: a call waits while the last minute's spend is over it. */
  tokensPerMinute?: number | undefined;
  /** Calls at once when nothing was refused: the target's workers. */
  maxConcurrency: number;
}

/** How long to stay away after a 429 that does not say (`Retry-After`). */
const DEFAULT_PAUSE_MS = 1000;

/**
 * Paces one target's calls: at most `requestsPerMinute` started per minute, spread evenly,
 * at most `tokensPerMinute` spent, and adaptive concurrency: an HTTP 429 halves the calls
 * allowed at once (down to 1) and pauses new calls for its `Retry-After`; each run of
 * successes as long as the current limit raises it by one again, up to `maxConcurrency`.
 */
export class RateLimiter {
  private limit: number;
  private inFlight = 0;
  private successes = 0;
  private nextStart = 0;
  private pausedUntil = 0;
  private tokens: number;
  private tokensAt = Date.now();
  private readonly waiters: (() => void)[] = [];
  private readonly interval: number;

  constructor(private readonly options: RateLimiterOptions) {
    this.limit = options.maxConcurrency;
    this.interval =
      options.requestsPerMinute === undefined ? 0 : 60_000 / options.requestsPerMinute;
    this.tokens = options.tokensPerMinute ?? 0;
  }

  /** Calls allowed at once now (for tests and `--verbose`). */
  get concurrency(): number {
    return this.limit;
  }

  /** Waits for a free slot, the request pace, a pause after a 429 and the token budget. */
  async acquire(signal?: AbortSignal): Promise<void> {
    while (this.inFlight >= this.limit) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
      if (signal?.aborted) return;
    }
    this.inFlight++;
    for (;;) {
      const now = Date.now();
      const wait = Math.max(this.pausedUntil - now, this.tokenWait(now));
      if (wait <= 0 || signal?.aborted) break;
      await sleep(wait, signal);
    }
    if (this.interval > 0) {
      // Reserved before waiting, so calls waiting together keep their spacing.
      const start = Math.max(Date.now(), this.nextStart);
      this.nextStart = start + this.interval;
      const wait = start - Date.now();
      if (wait > 0) await sleep(wait, signal);
    }
  }

  /** Ends a call started after `acquire`: what it spent, or the error it failed with. */
  release(outcome: { usage?: TokenUsage | undefined } | { error: unknown }): void {
    this.inFlight--;
    if ('error' in outcome) {
      this.refused(outcome.error);
    } else {
      this.spend(tokensOf(outcome.usage));
      if (this.limit < this.options.maxConcurrency && ++this.successes >= this.limit) {
        this.limit++;
        this.successes = 0;
      }
    }
    // Every waiter checks the limit again; those over it wait for the next release.
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Backs off when `error` is an HTTP 429: half the calls at once, and a pause. */
  refused(error: unknown): void {
    if (!isRateLimited(error)) return;
    this.limit = Math.max(1, Math.floor(this.limit / 2));
    this.successes = 0;
    // A wait longer than retries would make (a quota reset in an hour) is not waited for:
    // that case errors at once, and holding every other case that long would stall the run.
    if (retryAfterBeyondCap(error) !== undefined) return;
    const pause = (isProviderError(error) ? error.retryAfterMs : undefined) ?? DEFAULT_PAUSE_MS;
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + pause);
    this.nextStart = Math.max(this.nextStart, this.pausedUntil);
  }

  /** How long until the token bucket is above 0 again; 0 without a token limit. */
  private tokenWait(now: number): number {
    const perMinute = this.options.tokensPerMinute;
    if (perMinute === undefined) return 0;
    this.tokens = Math.min(perMinute, this.tokens + ((now - this.tokensAt) * perMinute) / 60_000);
    this.tokensAt = now;
    return this.tokens > 0 ? 0 : Math.ceil((-this.tokens * 60_000) / perMinute) + 1;
  }

  private spend(tokens: number): void {
    if (this.options.tokensPerMinute === undefined || tokens === 0) return;
    this.tokenWait(Date.now());
    this.tokens -= tokens;
  }
}

/** Whether `error` is a provider's HTTP 429 (too many requests). */
export function isRateLimited(error: unknown): boolean {
  return isProviderError(error) && error.details?.status === 429;
}
