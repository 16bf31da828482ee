import { describe, expect, it } from 'vitest';
import { parseShard, runIdOf, shardOf } from './shard.js';

describe('shardOf', () => {
  // A hash of the case alone keeps shards stable but balances only statistically: with
  // 10,000 cases one shard of n holds 10,000/n ± sqrt(10,000/n) or so, about 2% for 4
  // shards and 3% for 8 (where the largest of 8 comes to about 5%).
  it.each([
    [2, 0.05],
    [3, 0.05],
    [4, 0.05],
    [8, 0.08],
  ])(
    'puts each of 10,000 cases in exactly one of %i shards, sizes within %d of the mean',
    (count, tolerance) => {
      const ids = Array.from({ length: 10_000 }, (_, i) => `case-${i}`);
      {
        const sizes = new Array<number>(count).fill(0);
        for (const id of ids) {
          const shard = shardOf('evals/big.yaml', id, count);
          expect(shard).toBeGreaterThanOrEqual(1);
          expect(shard).toBeLessThanOrEqual(count);
          sizes[shard - 1]!++;
        }
        expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(10_000);
        const mean = 10_000 / count;
        for (const size of sizes) {
          expect(Math.abs(size - mean) / mean).toBeLessThanOrEqual(tolerance);
        }
      }
    },
  );

  it('depends only on the eval file and the case id', () => {
    expect(shardOf('evals/a.yaml', 'x', 16)).toBe(shardOf('evals/a.yaml', 'x', 16));
    const owners = Array.from({ length: 200 }, (_, i) => shardOf('evals/a.yaml', `c${i}`, 16));
    const elsewhere = Array.from({ length: 200 }, (_, i) => shardOf('evals/b.yaml', `c${i}`, 16));
    expect(owners).not.toEqual(elsewhere);
    expect(shardOf('evals/a.yaml', 'x', 1)).toBe(1);
  });
});

describe('parseShard', () => {
  it('reads i/n, 1-based', () => {
    expect(parseShard('1/4')).toEqual({ index: 1, count: 4 });
    expect(parseShard('4/4')).toEqual({ index: 4, count: 4 });
    expect(parseShard(' 2 / 3 ')).toEqual({ index: 2, count: 3 });
  });

  it.each(['0/4', '5/4', 'x', '1/0', '1', '1/4/2', '-1/4', '1.5/4'])(
    'rejects %s with a hint',
    (value) => {
      expect(() => parseShard(value)).toThrow(
        expect.objectContaining({
          message: `--shard must be i/n with 1 <= i <= n, got "${value}"`,
          hint: expect.stringContaining('--shard 1/4'),
        }),
      );
    },
  );
});

describe('runIdOf', () => {
  it('is the same for the same selection in any order, and differs for another', () => {
    expect(runIdOf(['a', 'b'])).toBe(runIdOf(['b', 'a']));
    expect(runIdOf(['a', 'b'])).not.toBe(runIdOf(['a']));
  });
});
