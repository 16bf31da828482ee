import { describe, expect, it } from 'vitest';
import type { EvaluationResult } from '../orchestrator/evaluation-result.js';
import { computeRunStatistics } from './run-statistics.js';

function scored(
  evalId: string,
  score: number,
  overrides: Partial<EvaluationResult> = {},
): EvaluationResult {
  return {
    timestamp: '2025-01-01T12:00:00.000Z',
    evalId,
    dataset: 'suite',
    evalFile: '/repo/evals/suite.yaml',
    target: 'default',
    score,
    passed: score >= 0.8,
    hits: [],
    misses: [],
    reasoning: '',
    candidateAnswer: 'It is 42.',
    evaluatorResults: [],
    attempts: 1,
    durationMs: 120,
    traceSummary: null,
    ...overrides,
  };
}

function errored(evalId: string, error: string): EvaluationResult {
  return scored(evalId, 0, { passed: false, error });
}

const counts = (stats: ReturnType<typeof computeRunStatistics>) =>
  stats.histogram.map((bin) => bin.count);

describe('computeRunStatistics', () => {
  it('computes counts and score statistics of known scores', () => {
    const stats = computeRunStatistics([
      scored('a', 1),
      scored('b', 0.5),
      scored('c', 0.75),
      scored('d', 0.25),
    ]);
    expect(stats).toMatchObject({ total: 4, passed: 1, failed: 3, errored: 0, graded: 4 });
    expect(stats.mean).toBeCloseTo(0.625);
    expect(stats.median).toBeCloseTo(0.625);
    expect(stats.min).toBe(0.25);
    expect(stats.max).toBe(1);
    // deviations 0.375, 0.125, 0.125, 0.375 -> variance 0.078125
    expect(stats.standardDeviation).toBeCloseTo(Math.sqrt(0.078125));
  });

  it('takes the middle score as the median of an odd count', () => {
    expect(
      computeRunStatistics([scored('a', 0.9), scored('b', 0.1), scored('c', 0.3)]).median,
    ).toBe(0.3);
  });

  it('bins boundary scores into the bin they start', () => {
    const stats = computeRunStatistics(
      [0, 0.19, 0.2, 0.4, 0.6, 0.1 * 6, 0.7 + 0.1, 0.8, 0.99, 1].map((score, index) =>
        scored(`c${index}`, score),
      ),
    );
    expect(stats.histogram.map(({ from, to }) => [from, to])).toEqual([
      [0, 0.2],
      [0.2, 0.4],
      [0.4, 0.6],
      [0.6, 0.8],
      [0.8, 1],
    ]);
    expect(counts(stats)).toEqual([2, 1, 1, 2, 4]);
  });

  it('leaves errored cases out of the score statistics and lists them first', () => {
    const stats = computeRunStatistics([
      scored('good', 1),
      errored('boom', 'provider timed out'),
      scored('weak', 0.4),
      scored('ok', 0.8),
      errored('crash', 'judge crashed'),
    ]);
    expect(stats).toMatchObject({ total: 5, passed: 2, failed: 1, errored: 2, graded: 3 });
    expect(stats.min).toBe(0.4);
    expect(stats.mean).toBeCloseTo(2.2 / 3);
    expect(counts(stats)).toEqual([0, 0, 1, 0, 2]);
    expect(stats.lowest.map((result) => result.evalId)).toEqual([
      'boom',
      'crash',
      'weak',
      'ok',
      'good',
    ]);
  });

  it('keeps at most lowestCount lowest cases, 5 by default', () => {
    const results = Array.from({ length: 8 }, (_, index) => scored(`c${index}`, 1 - index / 10));
    expect(computeRunStatistics(results).lowest.map((result) => result.evalId)).toEqual([
      'c7',
      'c6',
      'c5',
      'c4',
      'c3',
    ]);
    expect(computeRunStatistics(results, { lowestCount: 2 }).lowest).toHaveLength(2);
  });

  it('lists the lowest scores ascending with ties in run order, errored cases first', () => {
    const scores = [0.5, 0.2, 0.9, 0.2, 0.5, 0.1, 0.2, 1, 0.5, 0.1];
    const results = [
      ...scores.map((score, index) => scored(`c${index}`, score)),
      errored('e1', 'timed out'),
    ];
    const ids = (count: number) =>
      computeRunStatistics(results, { lowestCount: count }).lowest.map((result) => result.evalId);
    expect(ids(6)).toEqual(['e1', 'c5', 'c9', 'c1', 'c3', 'c6']);
    expect(ids(8)).toEqual(['e1', 'c5', 'c9', 'c1', 'c3', 'c6', 'c0', 'c4']);
    expect(ids(1)).toEqual(['e1']);
    expect(ids(0)).toEqual([]);
  });

  it('handles an empty run', () => {
    const stats = computeRunStatistics([]);
    expect(stats).toEqual({
      total: 0,
      passed: 0,
      failed: 0,
      errored: 0,
      graded: 0,
      mean: null,
      median: null,
      min: null,
      max: null,
      standardDeviation: null,
      histogram: [
        { from: 0, to: 0.2, count: 0 },
        { from: 0.2, to: 0.4, count: 0 },
        { from: 0.4, to: 0.6, count: 0 },
        { from: 0.6, to: 0.8, count: 0 },
        { from: 0.8, to: 1, count: 0 },
      ],
      lowest: [],
      tokens: null,
      costUsd: null,
      agentCostUsd: null,
      judgeCostUsd: null,
      cached: 0,
      passRate: null,
      durationMs: 0,
      failureClasses: {},
      targets: [],
      metrics: [],
    });
  });

  it('averages each named metric over the cases that report it', () => {
    const stats = computeRunStatistics([
      scored('a', 1, { metrics: { accuracy: 1, tone: 0.5 } }),
      scored('b', 0.5, { metrics: { accuracy: 0.5 } }),
      scored('c', 0.9),
    ]);
    expect(stats.metrics).toEqual([
      { name: 'accuracy', mean: 0.75, cases: 2 },
      { name: 'tone', mean: 0.5, cases: 1 },
    ]);
  });

  it('computes the figures of each target, by target name', () => {
    const stats = computeRunStatistics([
      scored('a', 1, { target: 'fast', durationMs: 100, usage: { inputTokens: 10 } }),
      scored('a', 0.5, { target: 'slow', durationMs: 900, costUsd: 0.5 }),
      scored('b', 0.9, { target: 'fast', durationMs: 50 }),
      { ...errored('b', 'timed out'), target: 'slow', durationMs: 1000 },
    ]);
    expect(stats.passRate).toBe(0.5);
    expect(stats.durationMs).toBe(2050);
    expect(stats.targets).toEqual([
      {
        target: 'fast',
        total: 2,
        passed: 2,
        failed: 0,
        errored: 0,
        graded: 2,
        passRate: 1,
        mean: 0.95,
        tokens: { input: 10, output: 0, cached: 0 },
        costUsd: null,
        agentCostUsd: null,
        judgeCostUsd: null,
        durationMs: 150,
      },
      {
        target: 'slow',
        total: 2,
        passed: 0,
        failed: 1,
        errored: 1,
        graded: 1,
        passRate: 0,
        mean: 0.5,
        tokens: null,
        costUsd: 0.5,
        agentCostUsd: 0.5,
        judgeCostUsd: null,
        durationMs: 1900,
      },
    ]);
    // A failed case without a class is the agent's; the errored one here has none either.
    expect(stats.failureClasses).toEqual({ agent: 2 });
  });

  it('sums tokens and cost of the results that report them, errored ones included', () => {
    const stats = computeRunStatistics([
      scored('a', 1, { usage: { inputTokens: 10, outputTokens: 4 }, costUsd: 0.25 }),
      scored('b', 0.5, { usage: { inputTokens: 5, cachedTokens: 3 }, cached: true }),
      { ...errored('c', 'boom'), usage: { inputTokens: 1, outputTokens: 1 }, costUsd: 0.5 },
      scored('d', 1),
    ]);
    expect(stats.tokens).toEqual({ input: 16, output: 5, cached: 3 });
    expect(stats.costUsd).toBe(0.75);
    expect(stats.cached).toBe(1);
  });

  it('handles a run where every case errored', () => {
    const stats = computeRunStatistics([errored('a', 'x')]);
    expect(stats).toMatchObject({ total: 1, errored: 1, graded: 0, mean: null });
    expect(counts(stats)).toEqual([0, 0, 0, 0, 0]);
  });
});
