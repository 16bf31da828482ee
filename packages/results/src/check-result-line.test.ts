import { describe, expect, it } from 'vitest';
import { checkResultLine } from './check-result-line.js';

const line = {
  timestamp: '2026-01-01T00:00:00.000Z',
  eval_id: 'case-1',
  dataset: 'suite',
  target: 'default',
  score: 1,
  passed: true,
  hits: [],
  misses: [],
  reasoning: '',
  candidate_answer: 'ok',
  evaluator_results: [],
  attempts: 1,
  duration_ms: 5,
  trace_summary: null,
};

describe('checkResultLine', () => {
  it('accepts a result line, with keys a newer AgentV adds', () => {
    expect(checkResultLine(line)).toBeUndefined();
    expect(checkResultLine({ ...line, failure_class: 'timeout', tags: ['a'] })).toBeUndefined();
  });

  it('says what is wrong with a line that is not one, as readResultFile does', () => {
    const { score: _, ...noScore } = line;
    expect(checkResultLine(noScore)).toBe('score: missing (expected a number)');
    expect(checkResultLine({ ...line, evaluator_results: 'x' })).toMatch(
      /^evaluator_results: expected an array/,
    );
    expect(checkResultLine(42)).toMatch(/object/);
  });
});
