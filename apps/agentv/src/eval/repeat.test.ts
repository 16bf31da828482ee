import type { EvaluationResult } from '@agentv/core';
import { describe, expect, it } from 'vitest';
import { reduceRepeats } from './repeat.js';

const result = (score: number, passed: boolean, error?: string): EvaluationResult => ({
  timestamp: '2026-01-01T00:00:00.000Z',
  evalId: 'case-1',
  dataset: 'ds',
  evalFile: '/p/evals/a.yaml',
  target: 'default',
  score,
  passed,
  hits: [],
  misses: [],
  reasoning: '',
  candidateAnswer: `answer ${score}`,
  evaluatorResults: [],
  attempts: 1,
  durationMs: 10,
  traceSummary: null,
  ...(error === undefined ? {} : { error }),
});

describe('reduceRepeats', () => {
  it('median of an even number of repeats is the mean of the middle two', () => {
    const agg = reduceRepeats(
      [result(0.2, false), result(1, true), result(0.6, true), result(0.4, false)],
      'median',
    );
    expect(agg.score).toBeCloseTo(0.5);
    expect(agg.passed).toBe(true);
    expect(agg.repeats?.flaky).toBe(true);
    expect(agg.attempts).toBe(4);
    expect(agg.durationMs).toBe(40);
  });

  it('--threshold decides mean verdicts', () => {
    const repeats = [result(0.7, true), result(0.7, true)];
    expect(reduceRepeats(repeats, 'mean', 0.8).passed).toBe(false);
    expect(reduceRepeats(repeats, 'mean', 0.7).passed).toBe(true);
  });

  it('an errored repeat counts as a failed 0; the aggregate errors only when all did', () => {
    const some = reduceRepeats([result(1, true), result(0, false, 'agent crashed')], 'pass_at_k');
    expect(some.passed).toBe(true);
    expect(some.error).toBeUndefined();
    expect(some.repeats?.runs[1]).toMatchObject({ repeat: 2, score: 0, error: 'agent crashed' });
    const all = reduceRepeats([result(0, false, 'x'), result(0, false, 'y')], 'pass_at_k');
    expect(all.error).toBe('y');
    expect(all.passed).toBe(false);
    expect(all.repeats?.flaky).toBe(false);
  });
});
