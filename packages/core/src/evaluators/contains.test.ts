import { describe, expect, it } from 'vitest';
import { containsEvaluator } from './contains.js';
import { makeConfig, makeContext } from './test-support/make-context.js';

/** The messages of the issues `validate` returned. */
const messagesOf = (issues: { message: string }[] | undefined) =>
  issues?.map((issue) => issue.message);

const context = makeContext({ candidateAnswer: 'Your refund of $20 for order 42 is on its way.' });

describe('contains', () => {
  it('scores 1 when the answer contains the value', async () => {
    const result = await containsEvaluator.evaluate(
      makeConfig('contains', { value: 'refund' }),
      context,
    );
    expect(result).toEqual({ score: 1, hits: ['Answer contains "refund"'], misses: [] });
  });

  it('needs every value of a list, and says which are missing', async () => {
    const config = makeConfig('contains', { value: ['refund', 'order 42', 'apology'] });
    const result = await containsEvaluator.evaluate(config, context);
    expect(result.score).toBe(0);
    expect(result.hits).toEqual(['Answer contains "refund"', 'Answer contains "order 42"']);
    expect(result.misses).toEqual(['Answer does not contain "apology"']);
  });

  it('is case sensitive unless case_sensitive is false', async () => {
    const sensitive = await containsEvaluator.evaluate(
      makeConfig('contains', { value: 'REFUND' }),
      context,
    );
    expect(sensitive.score).toBe(0);
    const insensitive = await containsEvaluator.evaluate(
      makeConfig('contains', { value: 'REFUND', case_sensitive: false }),
      context,
    );
    expect(insensitive.score).toBe(1);
  });

  it('reports a missing or malformed value', () => {
    expect(messagesOf(containsEvaluator.validate?.(makeConfig('contains')))).toEqual([
      expect.stringContaining('"value" is missing'),
    ]);
    expect(
      messagesOf(containsEvaluator.validate?.(makeConfig('contains', { value: [1] }))),
    ).toEqual([expect.stringContaining('only non-empty strings')]);
    expect(
      messagesOf(
        containsEvaluator.validate?.(makeConfig('contains', { value: 'x', case_sensitive: 'no' })),
      ),
    ).toEqual(['"case_sensitive" must be true or false, got "no"']);
    expect(
      messagesOf(containsEvaluator.validate?.(makeConfig('contains', { value: ['a', 'b'] }))),
    ).toEqual([]);
  });

  it('throws an evaluator error when run with an invalid config', async () => {
    await expect(containsEvaluator.evaluate(makeConfig('contains'), context)).rejects.toThrow(
      '"value" is missing',
    );
  });
});
