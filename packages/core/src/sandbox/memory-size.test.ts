import { describe, expect, it } from 'vitest';
import { parseMemorySize } from './memory-size.js';

describe('parseMemorySize', () => {
  it('reads Docker-style sizes', () => {
    expect(parseMemorySize('512m')).toBe(512 * 1024 ** 2);
    expect(parseMemorySize('2g')).toBe(2 * 1024 ** 3);
    expect(parseMemorySize('1.5G')).toBe(1.5 * 1024 ** 3);
    expect(parseMemorySize('64k')).toBe(64 * 1024);
  });

  it('refuses what is not a size with a unit', () => {
    for (const text of ['512', 'm', '512mb', '-1m', '0m', '2 gigs', '']) {
      expect(parseMemorySize(text), text).toBeUndefined();
    }
  });
});
