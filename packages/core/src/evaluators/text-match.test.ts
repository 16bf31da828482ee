import { describe, expect, it } from 'vitest';
import type { Evaluator } from './evaluator.js';
import { makeConfig, makeContext } from './test-support/make-context.js';
import { textMatchEvaluators } from './text-match.js';

const byType = new Map<string, Evaluator>(textMatchEvaluators.map((e) => [e.type, e]));
const answer = makeContext({ candidateAnswer: '  Refund issued for Order 42.\n' });

function grade(type: string, options: Record<string, unknown>) {
  return byType.get(type)!.evaluate(makeConfig(type, options), answer);
}

describe('text checks', () => {
  it('icontains ignores case', async () => {
    expect(await grade('icontains', { value: 'ORDER 42' })).toEqual({
      score: 1,
      hits: ['Answer contains "ORDER 42"'],
      misses: [],
    });
    expect((await grade('icontains', { value: 'order 43' })).misses).toEqual([
      'Answer does not contain "order 43"',
    ]);
  });

  it('contains_any passes on one value, naming it, and fails naming them all', async () => {
    expect((await grade('contains_any', { value: ['refund', 'Refund'] })).hits).toEqual([
      'Answer contains "Refund"',
    ]);
    expect(await grade('contains_any', { value: ['denied', 'rejected'] })).toEqual({
      score: 0,
      hits: [],
      misses: ['Answer contains none of ["denied","rejected"]'],
    });
    expect((await grade('icontains_any', { value: ['REFUND'] })).score).toBe(1);
  });

  it('contains_all needs each value, one hit or miss per value', async () => {
    const result = await grade('contains_all', { value: ['Refund', 'order'] });
    expect(result).toEqual({
      score: 0,
      hits: ['Answer contains "Refund"'],
      misses: ['Answer does not contain "order"'],
    });
    expect(
      (await grade('contains_all', { value: ['Refund', 'order'], case_sensitive: false })).score,
    ).toBe(1);
    expect((await grade('icontains_all', { value: ['REFUND', 'order'] })).score).toBe(1);
  });

  it('starts_with and ends_with compare the trimmed answer', async () => {
    expect((await grade('starts_with', { value: 'Refund' })).score).toBe(1);
    expect((await grade('starts_with', { value: 'refund', case_sensitive: false })).score).toBe(1);
    expect((await grade('ends_with', { value: '42.' })).score).toBe(1);
    expect(await grade('ends_with', { value: '42' })).toEqual({
      score: 0,
      hits: [],
      misses: ['Answer does not end with "42"'],
    });
  });

  it('validates value and case_sensitive', () => {
    const validate = (type: string, options: Record<string, unknown>) =>
      byType
        .get(type)!
        .validate?.(makeConfig(type, options))
        .map((issue) => issue.message);
    expect(validate('contains_any', { value: ['a'] })).toEqual([]);
    expect(validate('contains_any', {})).toEqual([expect.stringContaining('"value" is missing')]);
    expect(validate('contains_all', { value: ['a', 2] })).toEqual([
      expect.stringContaining('must be a non-empty list of non-empty strings'),
    ]);
    expect(validate('starts_with', { value: ['a'] })).toEqual([
      expect.stringContaining('"value" must be a string'),
    ]);
    expect(validate('ends_with', { value: 'a', case_sensitive: 'no' })).toEqual([
      expect.stringContaining('"case_sensitive" must be true or false'),
    ]);
    expect(byType.get('icontains')!.options).toEqual(['value']);
  });
});
