import { describe, expect, it } from 'vitest';
import { describeLineProblems } from './describe-line-problems.js';
import { resultLineSchema } from './result-line-schema.js';
import { makeResult } from './test-support/make-result.js';
import { toResultRecord } from './to-result-record.js';

const problems = (line: unknown) => {
  const checked = resultLineSchema.safeParse(line);
  return checked.success ? '' : describeLineProblems(checked.error.issues, line);
};
const good = toResultRecord(makeResult());

describe('describeLineProblems', () => {
  it('names the field, what it should hold and what it holds', () => {
    expect(problems({ ...good, evaluator_results: 'oops' })).toBe(
      'evaluator_results: expected an array, got a string',
    );
    expect(problems({ ...good, attempts: -1, cached: false })).toBe(
      'attempts: expected >= 0, got -1; cached: expected true, got false',
    );
    expect(problems({ ...good, usage: { input_tokens: '3' } })).toBe(
      'usage.input_tokens: expected a number, got a string',
    );
    expect(problems(null)).toBe('expected a result line (a JSON object), got null');
  });

  it('quotes a value that is not one of the allowed words only when it is short', () => {
    const grader = { ...good.evaluator_results[0], verdict: 'sk-secret-0123456789abcdef' };
    expect(problems({ ...good, evaluator_results: [grader] })).toBe(
      'evaluator_results[0].verdict: expected one of "pass", "borderline", "fail", "error", got a string of 26 characters',
    );
    const short = { ...good.evaluator_results[0], verdict: 'great' };
    expect(problems({ ...good, evaluator_results: [short] })).toContain('got "great"');
  });

  it('names missing keys of one object together and counts problems past the third', () => {
    expect(problems({ eval_id: 'x', target: 't', score: 1 })).toBe(
      'missing timestamp, dataset, passed, hits, misses and 6 more fields',
    );
    expect(problems({ ...good, run: {} })).toBe('run: missing id and cases');
    expect(problems({ ...good, hits: 1, misses: 2, reasoning: 3, candidate_answer: 4 })).toBe(
      'hits: expected an array, got a number; misses: expected an array, got a number; reasoning: expected a string, got a number; and 1 more problem',
    );
  });
});
