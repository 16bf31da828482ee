import { describe, expect, it } from 'vitest';
import type { EvaluationResult } from '../orchestrator/evaluation-result.js';
import { createResultTally } from './result-tally.js';
import { computeRunStatistics } from './run-statistics.js';

function result(evalId: string, passed: boolean): EvaluationResult {
  return {
    timestamp: '2026-01-01T00:00:00.000Z',
    evalId,
    dataset: 'suite',
    evalFile: '/evals/suite.yaml',
    target: 'default',
    score: passed ? 1 : 0,
    passed,
    hits: passed ? ['right'] : [],
    misses: passed ? [] : ['wrong', 'also wrong'],
    reasoning: 'because',
    candidateAnswer: 'a long answer',
    evaluatorResults: [],
    attempts: 1,
    durationMs: 10,
    traceSummary: null,
  };
}

describe('result tally', () => {
  const results = [result('a', true), result('b', false), result('c', true)];

  it.each([true, false, 'none'] as const)(
    'gives the statistics of every result added (retain %s)',
    (retain) => {
      const tally = createResultTally(retain);
      for (const each of results) tally.add(each);
      // Summaries drop answers, so only the figures are compared (and which cases are lowest).
      const figures = ({ lowest, ...rest }: ReturnType<typeof computeRunStatistics>) => ({
        ...rest,
        lowest: lowest.map((kept) => kept.evalId),
      });
      expect(figures(tally.statistics())).toEqual(figures(computeRunStatistics(results)));
    },
  );

  it('keeps every result, a summary of each, or none', () => {
    const whole = createResultTally(true);
    const summaries = createResultTally(false);
    const none = createResultTally('none');
    for (const each of results) {
      whole.add(each);
      summaries.add(each);
      none.add(each);
    }
    expect(whole.results).toEqual(results);
    expect(
      summaries.results.map((kept) => [kept.evalId, kept.candidateAnswer, kept.misses]),
    ).toEqual([
      ['a', '', []],
      ['b', '', ['wrong']],
      ['c', '', []],
    ]);
    expect(none.results).toEqual([]);
  });
});
