import { describe, expect, it } from 'vitest';
import { ProviderError } from '../errors/provider-error.js';
import { RateLimiter } from './rate-limiter.js';

const tooMany = () => new ProviderError('HTTP 429', { details: { status: 429 }, retryAfterMs: 1 });

describe('RateLimiter', () => {
  it('halves the calls at once on a 429 and raises them again after successes', async () => {
    const limiter = new RateLimiter({ maxConcurrency: 8 });
    await limiter.acquire();
    limiter.release({ error: tooMany() });
    expect(limiter.concurrency).toBe(4);
    await limiter.acquire();
    limiter.release({ error: tooMany() });
    expect(limiter.concurrency).toBe(2);
    // Each run of successes as long as the limit raises it by one, up to the workers.
    for (let call = 0; call < 40; call++) {
      await limiter.acquire();
      limiter.release({ usage: { inputTokens: 1 } });
    }
    expect(limiter.concurrency).toBe(8);
  });

  it('never lets more calls run at once than the current limit', async () => {
    const limiter = new RateLimiter({ maxConcurrency: 4 });
    await limiter.acquire();
    limiter.release({ error: tooMany() });
    await limiter.acquire();
    limiter.release({ error: tooMany() });
    expect(limiter.concurrency).toBe(1);
    let running = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        await limiter.acquire();
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
        limiter.release({});
      }),
    );
    // The limit rose back from 1 as calls succeeded, but never above what was allowed at the time.
    expect(most).toBeLessThanOrEqual(4);
    expect(most).toBeGreaterThanOrEqual(1);
  });

  it('other errors change nothing', async () => {
    const limiter = new RateLimiter({ maxConcurrency: 4 });
    await limiter.acquire();
    limiter.release({ error: new ProviderError('HTTP 500', { details: { status: 500 } }) });
    expect(limiter.concurrency).toBe(4);
  });
});
