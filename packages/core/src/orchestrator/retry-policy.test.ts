import { describe, expect, it } from 'vitest';
import { ProviderError } from '../errors/provider-error.js';
import { isRetryable, retryDelayMs } from './retry-policy.js';

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
