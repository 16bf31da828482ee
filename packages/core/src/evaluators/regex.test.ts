import { describe, expect, it } from 'vitest';
import { regexEvaluator } from './regex.js';
import { makeConfig, makeContext } from './test-support/make-context.js';

/** The messages of the issues `validate` returned. */
const messagesOf = (issues: { message: string }[] | undefined) =>
  issues?.map((issue) => issue.message);

const context = makeContext({ candidateAnswer: 'Order #4521 was refunded.' });

describe('regex', () => {
  it('scores 1 and shows the match when the pattern matches', async () => {
    const result = await regexEvaluator.evaluate(
      makeConfig('regex', { pattern: '#\\d+' }),
      context,
    );
    expect(result).toEqual({ score: 1, hits: ['Answer matches /#\\d+/ at "#4521"'], misses: [] });
  });

  it('scores 0 when the pattern does not match', async () => {
    const result = await regexEvaluator.evaluate(
      makeConfig('regex', { pattern: '^refunded' }),
      context,
    );
    expect(result).toEqual({ score: 0, hits: [], misses: ['Answer does not match /^refunded/'] });
  });

  it('applies flags and case_sensitive: false', async () => {
    const withFlag = makeConfig('regex', { pattern: 'ORDER', flags: 'i' });
    expect((await regexEvaluator.evaluate(withFlag, context)).score).toBe(1);
    const insensitive = makeConfig('regex', { pattern: 'ORDER', case_sensitive: false });
    expect((await regexEvaluator.evaluate(insensitive, context)).score).toBe(1);
    expect(
      (await regexEvaluator.evaluate(makeConfig('regex', { pattern: 'ORDER' }), context)).score,
    ).toBe(0);
  });

  it('reports an invalid pattern or flags before the run', () => {
    expect(
      messagesOf(regexEvaluator.validate?.(makeConfig('regex', { pattern: '(unclosed' }))),
    ).toEqual([
      expect.stringMatching(
        /^"pattern" "\(unclosed" with flags "" is not a valid regular expression: /,
      ),
    ]);
    expect(
      messagesOf(regexEvaluator.validate?.(makeConfig('regex', { pattern: 'a', flags: 'q' }))),
    ).toEqual([expect.stringContaining('is not a valid regular expression')]);
    expect(messagesOf(regexEvaluator.validate?.(makeConfig('regex')))).toEqual([
      expect.stringContaining('"pattern" is missing'),
    ]);
    // `value`, as the tests: format writes it, is named with the key to use instead.
    expect(messagesOf(regexEvaluator.validate?.(makeConfig('regex', { value: 'hel+o' })))).toEqual([
      '"pattern" is missing; this grader takes its regular expression in "pattern", not "value": write pattern: "hel+o"',
    ]);
    expect(
      messagesOf(regexEvaluator.validate?.(makeConfig('regex', { pattern: 'a', flags: 'm' }))),
    ).toEqual([]);
  });

  it('throws an evaluator error when run with an invalid pattern', async () => {
    await expect(
      regexEvaluator.evaluate(makeConfig('regex', { pattern: '[' }), context),
    ).rejects.toThrow('is not a valid regular expression');
  });
});
