import { describe, expect, it } from 'vitest';
import { levenshteinDistance, levenshteinEvaluator } from './levenshtein.js';
import { makeConfig, makeContext } from './test-support/make-context.js';

describe('levenshtein', () => {
  it('measures single-character edits', () => {
    expect(levenshteinDistance('kitten', 'sitting')).toBe(3);
    expect(levenshteinDistance('', 'abc')).toBe(3);
    expect(levenshteinDistance('ab', 'ba')).toBe(2);
  });

  it('passes within threshold edits (default 5), with the distance', async () => {
    const context = makeContext({ candidateAnswer: ' The capital is Paris. ' });
    const close = await levenshteinEvaluator.evaluate(
      makeConfig('levenshtein', { value: 'The capital is paris', threshold: 2 }),
      context,
    );
    expect(close).toEqual({
      score: 1,
      hits: ['Edit distance 2 to "The capital is paris" <= 2 (threshold)'],
      misses: [],
    });
    const far = await levenshteinEvaluator.evaluate(
      makeConfig('levenshtein', { value: 'The capital is Lyon' }),
      context,
    );
    expect(far.score).toBe(0);
    expect(far.misses).toEqual(['Edit distance 6 to "The capital is Lyon" > 5 (threshold)']);
  });

  it('validates its options', () => {
    const issues = levenshteinEvaluator.validate?.(makeConfig('levenshtein', { threshold: 0.5 }));
    expect(issues?.map((issue) => issue.message)).toEqual([
      expect.stringContaining('"value" must be the text'),
      expect.stringContaining('"threshold" must be the most edits allowed'),
    ]);
  });
});
