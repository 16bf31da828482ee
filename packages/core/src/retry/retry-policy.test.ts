import { describe, expect, it } from 'vitest';
import { ProviderError } from '../errors/provider-error.js';
import {
  describeRetryAfterBeyondCap,
  isRetryable,
  MAX_RETRY_AFTER_MS,
  retryAfterBeyondCap,
  retryDelayMs,
  withRetries,
} from './retry-policy.js';

const policy = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 1000 };

describe('retryDelayMs', () => {
  it('doubles the delay each retry, with jitter between half and all of it', () => {
    expect(retryDelayMs(1, policy, () => 0)).toBe(50);
    expect(retryDelayMs(1, policy, () => 1)).toBe(100);
    expect(retryDelayMs(2, policy, () => 1)).toBe(200);
    expect(retryDelayMs(3, policy, () => 0.5)).toBe(300);
  });

  it('never waits longer than maxDelayMs', () => {
    expect(retryDelayMs(10, policy, () => 1)).toBe(1000);
  });
});

describe('isRetryable', () => {
  it('follows ProviderError.retryable and retries unknown errors', () => {
    expect(isRetryable(new ProviderError('exit 1'))).toBe(true);
    expect(isRetryable(new ProviderError('NUL in prompt', { retryable: false }))).toBe(false);
    expect(isRetryable(new Error('spawn failed'))).toBe(true);
  });
});

describe('withRetries', () => {
  const quick = { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 2 };

  /** Runs `withRetries` with a sleep that records each wait and really waits 0 ms. */
  async function retried<T>(
    fn: (attempt: number) => Promise<T>,
    retryPolicy = quick,
    signal?: AbortSignal,
  ) {
    const waits: number[] = [];
    const failures: number[] = [];
    const outcome = await withRetries(fn, retryPolicy, {
      signal,
      sleep: async (ms) => {
        waits.push(ms);
      },
      onFailure: (_error, attempt) => {
        failures.push(attempt);
      },
    });
    return { outcome, waits, failures };
  }

  it('returns the first success with the number of attempts it took', async () => {
    const { outcome, waits, failures } = await retried(async (attempt) => {
      if (attempt < 2) throw new ProviderError(`flaky ${attempt}`);
      return `ok on ${attempt}`;
    });
    expect(outcome).toEqual({ ok: true, value: 'ok on 2', attempts: 3 });
    expect(failures).toEqual([1, 2]);
    expect(waits).toHaveLength(2);
  });

  it('gives up after maxRetries retries with the last error', async () => {
    const { outcome } = await retried(async (attempt) => {
      throw new ProviderError(`fail ${attempt}`);
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.attempts).toBe(3);
    expect(!outcome.ok && (outcome.error as Error).message).toBe('fail 2');
  });

  it('stops at the first error that is not retryable', async () => {
    const { outcome, waits } = await retried(async () => {
      throw new ProviderError('bad request', { retryable: false });
    });
    expect(outcome.attempts).toBe(1);
    expect(waits).toEqual([]);
  });

  it('waits the Retry-After the provider asked for instead of the backoff, up to a minute', async () => {
    const asks = [5_000, MAX_RETRY_AFTER_MS];
    const { waits, outcome } = await retried(async (attempt) => {
      throw new ProviderError('429', { retryAfterMs: asks[attempt] });
    });
    expect(waits).toEqual([5_000, MAX_RETRY_AFTER_MS]);
    expect(outcome.attempts).toBe(3);
  });

  it('does not retry an error whose Retry-After asks for more than a minute, and says why', async () => {
    const asked = new ProviderError('429', { retryAfterMs: 300_000 });
    const { waits, outcome } = await retried(async () => {
      throw asked;
    });
    expect(waits).toEqual([]);
    expect(outcome).toEqual({ ok: false, error: asked, attempts: 1 });
    expect(retryAfterBeyondCap(asked)).toBe(300_000);
    expect(describeRetryAfterBeyondCap(asked)).toBe(
      'the service asked to wait 300 s before another attempt (Retry-After), longer than AgentV waits between attempts (60 s), so it was not retried',
    );
    expect(describeRetryAfterBeyondCap(new ProviderError('429', { retryAfterMs: 60_000 }))).toBe(
      undefined,
    );
  });

  it('tells onWait each wait, and whether Retry-After or the backoff set it', async () => {
    const waits: { failed: number; waitMs: number; retryAfter: boolean }[] = [];
    await withRetries(
      async (attempt) => {
        throw new ProviderError('busy', attempt === 0 ? { retryAfterMs: 1_500 } : {});
      },
      quick,
      { sleep: async () => {}, random: () => 1, onWait: (wait) => waits.push(wait) },
    );
    expect(waits).toEqual([
      { failed: 1, waitMs: 1_500, retryAfter: true },
      { failed: 2, waitMs: 2, retryAfter: false },
    ]);
  });

  it('really waits the Retry-After with the default sleep', async () => {
    const started = performance.now();
    const outcome = await withRetries(
      async (attempt) => {
        if (attempt === 0) throw new ProviderError('429', { retryAfterMs: 30 });
        return performance.now() - started;
      },
      { maxRetries: 1, baseDelayMs: 0, maxDelayMs: 0 },
    );
    expect(outcome.ok && outcome.value).toBeGreaterThanOrEqual(29);
  });

  it('starts no attempt once the signal has fired', async () => {
    const controller = new AbortController();
    const { outcome } = await retried(
      async () => {
        controller.abort();
        throw new ProviderError('interrupted');
      },
      quick,
      controller.signal,
    );
    expect(outcome.attempts).toBe(1);
    controller.abort();
    const before = await retried(async () => 'never', quick, controller.signal);
    expect(before.outcome).toEqual({ ok: false, error: undefined, attempts: 0 });
  });
});
