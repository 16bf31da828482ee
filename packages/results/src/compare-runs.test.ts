import { describe, expect, it } from 'vitest';
import {
  type ComparableResult,
  compareRuns,
  mcnemarTest,
  pairedBootstrap,
  TIE_TOLERANCE,
} from './compare-runs.js';

const file = 'evals/support.yaml';
const result = (evalId: string, score: number, passed: boolean, error?: string) =>
  ({
    evalFile: file,
    evalId,
    target: 'agent',
    score,
    passed,
    ...(error === undefined ? {} : { error }),
  }) satisfies ComparableResult;

// id: base (score, passed) -> new (score, passed)
const base = [
  result('c1', 1, true), //   -> 0 fail      regressed, loss -1
  result('c2', 0.9, true), // -> 0.4 fail    regressed, loss -0.5
  result('c3', 0.2, false), // -> 1 pass     fixed, win +0.8
  result('c4', 0, false, 'agent crashed'), // -> 0.8 pass  fixed, win +0.8
  result('c5', 0.5, false), // -> 0.9 pass   fixed, win +0.4
  result('c6', 0.3, false), // -> 0.7 pass   fixed, win +0.4
  result('c7', 1, true), //   -> 1 pass      tie
  result('c8', 0.8, true), // -> 0.8 + 1e-12 tie (within the tolerance)
  result('c9', 0.9, true), // -> 0.8 pass    loss -0.1, still passing
  result('c10', 0.1, false), // -> 0.1 fail  tie
  result('c11', 1, true), //  only in base
];
const next = [
  result('c1', 0, false),
  result('c2', 0.4, false),
  result('c3', 1, true),
  result('c4', 0.8, true),
  result('c5', 0.9, true),
  result('c6', 0.7, true),
  result('c7', 1, true),
  result('c8', 0.8 + 1e-12, true),
  result('c9', 0.8, true),
  result('c10', 0.1, false),
  result('c12', 1, true), //  only in new
];

describe('compareRuns', () => {
  const comparison = compareRuns(base, next, { seed: 7, resamples: 2000 });

  it('counts wins, losses, ties, regressions and fixes of the matched cases', () => {
    expect(comparison.cases).toHaveLength(10);
    expect(comparison).toMatchObject({ wins: 4, losses: 3, ties: 3, regressions: 2, fixes: 4 });
    expect(comparison.onlyInBase).toEqual([{ evalFile: file, evalId: 'c11', target: 'agent' }]);
    expect(comparison.onlyInNew).toEqual([{ evalFile: file, evalId: 'c12', target: 'agent' }]);
  });

  it('lists regressions first, then the largest score drops', () => {
    // c1 (-1), c2 (-0.5) regressed; c9 (-0.1); ties c10, c7, c8 (0, by id); c5, c6 (+0.4); c3, c4 (+0.8)
    expect(comparison.cases.map((c) => c.evalId)).toEqual([
      'c1',
      'c2',
      'c9',
      'c10',
      'c7',
      'c8',
      'c5',
      'c6',
      'c3',
      'c4',
    ]);
    expect(comparison.cases[0]).toMatchObject({ change: 'regressed', outcome: 'loss', delta: -1 });
    expect(comparison.cases.find((c) => c.evalId === 'c8')).toMatchObject({
      outcome: 'tie',
      delta: 0,
    });
    expect(comparison.cases.find((c) => c.evalId === 'c4')).toMatchObject({
      change: 'fixed',
      baseError: 'agent crashed',
    });
  });

  it('computes pass rates, mean scores and McNemar on the matched cases', () => {
    // passed in base: c1 c2 c7 c8 c9 = 5/10; in new: c3 c4 c5 c6 c7 c8 c9 = 7/10
    expect(comparison.passRate.base).toBeCloseTo(0.5, 12);
    expect(comparison.passRate.new).toBeCloseTo(0.7, 12);
    expect(comparison.passRate.delta).toBeCloseTo(0.2, 12);
    // base: 1+.9+.2+0+.5+.3+1+.8+.9+.1 = 5.7; new: 0+.4+1+.8+.9+.7+1+.8+.8+.1 = 6.5
    expect(comparison.meanScore.base).toBeCloseTo(0.57, 9);
    expect(comparison.meanScore.new).toBeCloseTo(0.65, 9);
    // b = 2 (c1, c2), c = 4 (c3..c6); n = 6 < 25: exact,
    // p = 2 * (C(6,0) + C(6,1) + C(6,2)) / 2^6 = 2 * (1 + 6 + 15) / 64 = 0.6875
    expect(comparison.mcnemar).toEqual({ b: 2, c: 4, method: 'exact', pValue: 0.6875 });
    expect(comparison.bootstrap).toEqual({ resamples: 2000, seed: 7 });
    const [low, high] = comparison.passRate.ci95;
    expect(low).toBeLessThanOrEqual(0.2);
    expect(high).toBeGreaterThanOrEqual(0.2);
  });

  it('is deterministic for a seed', () => {
    const again = compareRuns(base, next, { seed: 7, resamples: 2000 });
    expect(again.passRate.ci95).toEqual(comparison.passRate.ci95);
    expect(again.meanScore.ci95).toEqual(comparison.meanScore.ci95);
  });

  it('matches by target only when asked', () => {
    const other = next.map((r) => ({ ...r, target: 'other' }));
    expect(compareRuns(base, other, { resamples: 10 }).cases).toHaveLength(10);
    const byTarget = compareRuns(base, other, { matchTarget: true, resamples: 10 });
    expect(byTarget.cases).toHaveLength(0);
    expect(byTarget.onlyInBase).toHaveLength(11);
  });

  it('treats scores closer than the tolerance as a tie', () => {
    expect(TIE_TOLERANCE).toBe(1e-9);
    const tie = compareRuns([result('a', 0.5, true)], [result('a', 0.5 + 5e-10, true)], {
      resamples: 10,
    });
    expect(tie.ties).toBe(1);
    const win = compareRuns([result('a', 0.5, true)], [result('a', 0.5 + 2e-9, true)], {
      resamples: 10,
    });
    expect(win.wins).toBe(1);
  });
});

describe('mcnemarTest', () => {
  it('uses the exact binomial test below 25 discordant pairs', () => {
    // b = 0, c = 5: p = 2 * C(5,0) / 2^5 = 2 / 32 = 0.0625
    expect(mcnemarTest(0, 5)).toEqual({ b: 0, c: 5, method: 'exact', pValue: 0.0625 });
    // b = 12, c = 12: the tail reaches the middle, 2 * P(X <= 12) > 1, capped at 1
    expect(mcnemarTest(12, 12).pValue).toBe(1);
    // b = 3, c = 21 (n = 24): p = 2 * (1 + 24 + 276 + 2024) / 2^24 = 4650 / 16777216
    expect(mcnemarTest(3, 21).pValue).toBeCloseTo(4650 / 16777216, 15);
    expect(mcnemarTest(0, 0)).toEqual({ b: 0, c: 0, method: 'exact', pValue: 1 });
  });

  it('uses the continuity-corrected chi-square from 25 discordant pairs', () => {
    // b = 5, c = 25: (|5 - 25| - 1)^2 / 30 = 361 / 30 = 12.0333…;
    // P(chi2(1) > 12.0333) = 0.000522575395124 (scipy.stats.chi2.sf)
    const test = mcnemarTest(5, 25);
    expect(test.method).toBe('chi_square');
    expect(test.statistic).toBeCloseTo(361 / 30, 12);
    expect(test.pValue).toBeCloseTo(0.000522575395124, 12);
    // b = 10, c = 20: (10 - 1)^2 / 30 = 2.7; p = 0.100348246462 (scipy)
    expect(mcnemarTest(10, 20).pValue).toBeCloseTo(0.100348246462, 10);
    // b = 100, c = 130: 29^2 / 230 = 3.65652…; p = 0.0558501136757 (scipy)
    expect(mcnemarTest(100, 130).pValue).toBeCloseTo(0.0558501136757, 10);
    // b = 12, c = 13: (1 - 1)^2 / 25 = 0; p = 1
    expect(mcnemarTest(12, 13)).toMatchObject({ method: 'chi_square', statistic: 0, pValue: 1 });
  });
});

describe('pairedBootstrap', () => {
  it('gives a degenerate interval when every pair differs by the same amount', () => {
    const pairs = Array.from({ length: 30 }, () => [0.25, 0.75] as const);
    expect(pairedBootstrap([pairs], 500, 3)).toEqual([[0.5, 0.5]]);
  });

  it('matches the normal approximation for a large sample', () => {
    // 100 cases, 20 fixed (difference 1) and 80 unchanged (difference 0): mean 0.2,
    // standard error sqrt(0.2 * 0.8 / 100) = 0.04, so about 0.2 ± 1.96 * 0.04 = [0.1216, 0.2784].
    const pairs = Array.from({ length: 100 }, (_, i): [number, number] =>
      i < 20 ? [0, 1] : [1, 1],
    );
    const [[low, high]] = pairedBootstrap([pairs], 10_000, 1) as [[number, number]];
    expect(Math.abs(low - 0.1216)).toBeLessThan(0.02);
    expect(Math.abs(high - 0.2784)).toBeLessThan(0.02);
    // A mean of 100 differences of 0 or 1 is a multiple of 1/100.
    expect(Math.round(low * 100) / 100).toBeCloseTo(low, 12);
    expect(Math.round(high * 100) / 100).toBeCloseTo(high, 12);
  });

  it('returns [0, 0] without cases', () => {
    expect(pairedBootstrap([[]], 100, 1)).toEqual([[0, 0]]);
  });
});
