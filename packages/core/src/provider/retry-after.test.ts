import { describe, expect, it } from 'vitest';
import { parseRetryAfterMs } from './retry-after.js';

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2025-01-01T12:00:00Z');

  it('reads Retry-After in seconds and as an HTTP date', () => {
    expect(parseRetryAfterMs({ 'retry-after': '2' }, now)).toBe(2000);
    expect(parseRetryAfterMs({ 'Retry-After': '0.5' }, now)).toBe(500);
    expect(parseRetryAfterMs({ 'retry-after': 'Wed, 01 Jan 2025 12:00:30 GMT' }, now)).toBe(30_000);
    expect(parseRetryAfterMs({ 'retry-after': 'Wed, 01 Jan 2025 11:59:00 GMT' }, now)).toBe(0);
  });

  it('prefers retry-after-ms', () => {
    expect(parseRetryAfterMs({ 'retry-after-ms': '1500', 'retry-after': '9' }, now)).toBe(1500);
  });

  it('is undefined without a usable header', () => {
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
    expect(parseRetryAfterMs({}, now)).toBeUndefined();
    expect(parseRetryAfterMs({ 'retry-after': 'soon' }, now)).toBeUndefined();
  });
});
