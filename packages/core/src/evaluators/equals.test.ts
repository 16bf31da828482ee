import { describe, expect, it } from 'vitest';
import { equalsEvaluator } from './equals.js';
import { makeConfig, makeContext } from './test-support/make-context.js';

/** The messages of the issues `validate` returned. */
const messagesOf = (issues: { message: string }[] | undefined) =>
  issues?.map((issue) => issue.message);

describe('equals', () => {
  it('compares trimmed answer and value', async () => {
    const context = makeContext({ candidateAnswer: '  42\n' });
    const result = await equalsEvaluator.evaluate(makeConfig('equals', { value: ' 42 ' }), context);
    expect(result).toEqual({ score: 1, hits: ['Answer equals "42"'], misses: [] });
  });

  it('compares a number value as text', async () => {
    const context = makeContext({ candidateAnswer: '42' });
    const result = await equalsEvaluator.evaluate(makeConfig('equals', { value: 42 }), context);
    expect(result.score).toBe(1);
  });

  it('scores 0 and shows both texts when they differ', async () => {
    const context = makeContext({ candidateAnswer: 'forty-two' });
    const result = await equalsEvaluator.evaluate(makeConfig('equals', { value: '42' }), context);
    expect(result).toEqual({
      score: 0,
      hits: [],
      misses: ['Answer "forty-two" does not equal "42"'],
    });
  });

  it('ignores case when case_sensitive is false', async () => {
    const context = makeContext({ candidateAnswer: 'YES' });
    expect(
      (await equalsEvaluator.evaluate(makeConfig('equals', { value: 'yes' }), context)).score,
    ).toBe(0);
    const insensitive = makeConfig('equals', { value: 'yes', case_sensitive: false });
    expect((await equalsEvaluator.evaluate(insensitive, context)).score).toBe(1);
  });

  it('reports a missing or non-text value', () => {
    expect(messagesOf(equalsEvaluator.validate?.(makeConfig('equals')))).toEqual([
      expect.stringContaining('"value" is missing'),
    ]);
    expect(
      messagesOf(equalsEvaluator.validate?.(makeConfig('equals', { value: { a: 1 } }))),
    ).toEqual(['"value" must be a string, number or boolean, got {"a":1}']);
  });
});
