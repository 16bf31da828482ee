import type { EvaluationResult } from '../orchestrator/evaluation-result.js';

/** One bar of the score histogram: scores in [from, to), the last bin [0.8, 1.0]. */
export interface HistogramBin {
  from: number;
  to: number;
  count: number;
}

/**
 * Counts and score statistics of a run. Errored cases are counted in `total`
 * and `errored` only: their score says nothing about the answer, so `mean`,
 * `median`, `min`, `max`, `standardDeviation` and `histogram` cover the
 * `graded` cases (those without an error) and are null when there are none.
 */
export interface RunStatistics {
  total: number;
  passed: number;
  /** Cases that did not pass and have no error. */
  failed: number;
  errored: number;
  /** Cases counted in the score statistics: every case without an error. */
  graded: number;
  mean: number | null;
  median: number | null;
  min: number | null;
  max: number | null;
  /** Population standard deviation. */
  standardDeviation: number | null;
  histogram: HistogramBin[];
  /** Errored cases first (in run order), then graded cases by ascending score. */
  lowest: EvaluationResult[];
  /** Token totals over the results (agent and judge calls) that report usage; null when none does. */
  tokens: TokenTotals | null;
  /** Summed `costUsd` and `judgeCostUsd` of the results; null when none reports one. */
  costUsd: number | null;
  /** Results whose provider answered from its cache. */
  cached: number;
  /** `passed / total` (an errored case counts as not passed); null for an empty run. */
  passRate: number | null;
  /** Summed `durationMs` of the results: time spent answering and grading cases. */
  durationMs: number;
  /** The same figures per target, by target name (one entry per target, so a run's order is stable). */
  targets: TargetStatistics[];
}

/** A run's figures for one target, for comparing targets side by side. */
export interface TargetStatistics {
  target: string;
  total: number;
  passed: number;
  failed: number;
  errored: number;
  graded: number;
  passRate: number | null;
  /** Mean score of the target's cases without an error; null when there are none. */
  mean: number | null;
  tokens: TokenTotals | null;
  costUsd: number | null;
  durationMs: number;
}

/** Tokens summed over a run (`cached` counts input tokens the model served from its prompt cache). */
export interface TokenTotals {
  input: number;
  output: number;
  cached: number;
}

export interface RunStatisticsOptions {
  /** How many cases `lowest` holds at most. Default 5. */
  lowestCount?: number;
}

const BIN_EDGES = [0, 0.2, 0.4, 0.6, 0.8];
// Scores such as 0.1 * 6 land a hair below a bin edge they are meant to sit on.
const EPSILON = 1e-9;

/** Computes the statistics of a run's results. */
export function computeRunStatistics(
  results: readonly EvaluationResult[],
  options: RunStatisticsOptions = {},
): RunStatistics {
  const erroredCases = results.filter((result) => result.error !== undefined);
  const gradedCases = results.filter((result) => result.error === undefined);
  const scores = gradedCases.map((result) => result.score).sort((a, b) => a - b);
  const passed = gradedCases.filter((result) => result.passed).length;

  const histogram = BIN_EDGES.map((from, index) => ({
    from,
    to: BIN_EDGES[index + 1] ?? 1,
    count: 0,
  }));
  for (const score of scores) histogram[binIndex(score)]!.count++;

  const lowestCount = Math.max(0, options.lowestCount ?? 5);
  const lowest = [
    ...erroredCases.slice(0, lowestCount),
    ...lowestScores(gradedCases, lowestCount - Math.min(lowestCount, erroredCases.length)),
  ];

  return {
    total: results.length,
    passed,
    failed: gradedCases.length - passed,
    errored: erroredCases.length,
    graded: gradedCases.length,
    ...scoreStatistics(scores),
    histogram,
    lowest,
    ...usageTotals(results),
    passRate: results.length === 0 ? null : passed / results.length,
    durationMs: totalDuration(results),
    targets: [...groupByTarget(results)]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([target, group]) => targetStatistics(target, group)),
  };
}

function targetStatistics(target: string, results: readonly EvaluationResult[]): TargetStatistics {
  const graded = results.filter((result) => result.error === undefined);
  const passed = graded.filter((result) => result.passed).length;
  const { tokens, costUsd } = usageTotals(results);
  return {
    target,
    total: results.length,
    passed,
    failed: graded.length - passed,
    errored: results.length - graded.length,
    graded: graded.length,
    passRate: results.length === 0 ? null : passed / results.length,
    mean:
      graded.length === 0
        ? null
        : graded.reduce((sum, result) => sum + result.score, 0) / graded.length,
    tokens,
    costUsd,
    durationMs: totalDuration(results),
  };
}

function groupByTarget(results: readonly EvaluationResult[]): Map<string, EvaluationResult[]> {
  const groups = new Map<string, EvaluationResult[]>();
  for (const result of results) {
    const group = groups.get(result.target);
    if (group) group.push(result);
    else groups.set(result.target, [result]);
  }
  return groups;
}

function totalDuration(results: readonly EvaluationResult[]): number {
  return results.reduce((sum, result) => sum + result.durationMs, 0);
}

function usageTotals(
  results: readonly EvaluationResult[],
): Pick<RunStatistics, 'tokens' | 'costUsd' | 'cached'> {
  let tokens: TokenTotals | null = null;
  let costUsd: number | null = null;
  let cached = 0;
  for (const result of results) {
    if (result.cached === true) cached++;
    // The agent's calls and the judge calls that graded its answer both count.
    if (result.costUsd !== undefined) costUsd = (costUsd ?? 0) + result.costUsd;
    if (result.judgeCostUsd !== undefined) costUsd = (costUsd ?? 0) + result.judgeCostUsd;
    if (result.usage !== undefined) tokens = addUsage(tokens, result.usage);
    if (result.judgeUsage !== undefined) tokens = addUsage(tokens, result.judgeUsage);
  }
  return { tokens, costUsd, cached };
}

function addUsage(
  tokens: TokenTotals | null,
  usage: NonNullable<EvaluationResult['usage']>,
): TokenTotals {
  const totals = tokens ?? { input: 0, output: 0, cached: 0 };
  totals.input += usage.inputTokens ?? 0;
  totals.output += usage.outputTokens ?? 0;
  totals.cached += usage.cachedTokens ?? 0;
  return totals;
}

/**
 * The `count` results with the lowest scores, ascending, ties in run order: what sorting
 * them all would give, in one pass instead of a sort of every result.
 */
function lowestScores(results: readonly EvaluationResult[], count: number): EvaluationResult[] {
  const kept: EvaluationResult[] = [];
  if (count <= 0) return kept;
  for (const result of results) {
    if (kept.length === count && result.score >= kept[count - 1]!.score) continue;
    // After every kept result of the same score, so ties stay in run order.
    let at = kept.length;
    while (at > 0 && kept[at - 1]!.score > result.score) at--;
    kept.splice(at, 0, result);
    if (kept.length > count) kept.pop();
  }
  return kept;
}

function binIndex(score: number): number {
  for (let index = BIN_EDGES.length - 1; index > 0; index--) {
    if (score >= BIN_EDGES[index]! - EPSILON) return index;
  }
  return 0;
}

/** Statistics of ascending `scores`. */
function scoreStatistics(
  scores: number[],
): Pick<RunStatistics, 'mean' | 'median' | 'min' | 'max' | 'standardDeviation'> {
  if (scores.length === 0) {
    return { mean: null, median: null, min: null, max: null, standardDeviation: null };
  }
  const mean = scores.reduce((sum, score) => sum + score, 0) / scores.length;
  const middle = Math.floor(scores.length / 2);
  const median =
    scores.length % 2 === 1 ? scores[middle]! : (scores[middle - 1]! + scores[middle]!) / 2;
  const variance = scores.reduce((sum, score) => sum + (score - mean) ** 2, 0) / scores.length;
  return {
    mean,
    median,
    min: scores[0]!,
    max: scores[scores.length - 1]!,
    standardDeviation: Math.sqrt(variance),
  };
}
