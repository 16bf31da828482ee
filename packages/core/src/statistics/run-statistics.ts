import type { FailureClass } from '../errors/failure-class.js';
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
  /** Summed `costUsd` (the agents' spend); null when none reports one. */
  agentCostUsd: number | null;
  /** Summed `judgeCostUsd` (the judges' spend); null when none reports one. */
  judgeCostUsd: number | null;
  /** Results whose provider answered from its cache. */
  cached: number;
  /** `passed / total` (an errored case counts as not passed); null for an empty run. */
  passRate: number | null;
  /** Summed `durationMs` of the results: time spent answering and grading cases. */
  durationMs: number;
  /** The same figures per target, by target name (one entry per target, so a run's order is stable). */
  targets: TargetStatistics[];
  /** Named metrics (`metric:` on graders), by name: their mean over the cases that report them. */
  metrics: MetricStatistics[];
  /** Failed and errored cases by `failureClass` (only classes that occurred; a case without one counts as `agent`). */
  failureClasses: Partial<Record<FailureClass, number>>;
}

/** A named metric over a run. */
export interface MetricStatistics {
  name: string;
  /** Mean of the cases' scores for it. */
  mean: number;
  /** Cases that report it. */
  cases: number;
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
  /** The agent's cost (`costUsd` of its results) and the judges' (`judgeCostUsd`); null when none is known. */
  agentCostUsd: number | null;
  judgeCostUsd: number | null;
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
  const accumulator = createRunStatisticsAccumulator(options);
  for (const result of results) accumulator.add(result);
  return accumulator.statistics();
}

/**
 * Adds results up one at a time, in run order, keeping only what the
 * statistics need (a score per graded case, the lowest few results and sums):
 * `statistics()` then equals `computeRunStatistics` of every added result, so
 * a run of millions of cases need not keep its results for its summary.
 */
export interface RunStatisticsAccumulator {
  add(result: EvaluationResult): void;
  statistics(): RunStatistics;
}

export function createRunStatisticsAccumulator(
  options: RunStatisticsOptions = {},
): RunStatisticsAccumulator {
  const lowestCount = Math.max(0, options.lowestCount ?? 5);
  const overall = new Totals();
  const byTarget = new Map<string, Totals>();
  let scores = new Float64Array(1024);
  let graded = 0;
  const erroredFirst: EvaluationResult[] = [];
  const metrics = new Map<string, { total: number; cases: number }>();
  const lowestGraded: EvaluationResult[] = [];
  return {
    add(result) {
      overall.add(result);
      let totals = byTarget.get(result.target);
      if (totals === undefined) {
        totals = new Totals();
        byTarget.set(result.target, totals);
      }
      totals.add(result);
      if (result.metrics !== undefined) {
        for (const name in result.metrics) {
          const sum = metrics.get(name) ?? { total: 0, cases: 0 };
          sum.total += result.metrics[name]!;
          sum.cases++;
          metrics.set(name, sum);
        }
      }
      if (result.error !== undefined) {
        if (erroredFirst.length < lowestCount) erroredFirst.push(result);
        return;
      }
      if (graded === scores.length) {
        const grown = new Float64Array(scores.length * 2);
        grown.set(scores);
        scores = grown;
      }
      scores[graded++] = result.score;
      keepLowest(lowestGraded, result, lowestCount);
    },
    statistics() {
      const sorted = Array.from(scores.subarray(0, graded)).sort((a, b) => a - b);
      const histogram = BIN_EDGES.map((from, index) => ({
        from,
        to: BIN_EDGES[index + 1] ?? 1,
        count: 0,
      }));
      for (const score of sorted) histogram[binIndex(score)]!.count++;
      const lowest = [
        ...erroredFirst,
        ...lowestGraded.slice(0, lowestCount - Math.min(lowestCount, erroredFirst.length)),
      ];
      return {
        total: overall.total,
        passed: overall.passed,
        failed: overall.graded - overall.passed,
        errored: overall.total - overall.graded,
        graded: overall.graded,
        ...scoreStatistics(sorted),
        histogram,
        lowest,
        tokens: overall.tokens,
        costUsd: overall.costUsd,
        agentCostUsd: overall.agentCostUsd,
        judgeCostUsd: overall.judgeCostUsd,
        cached: overall.cached,
        passRate: overall.total === 0 ? null : overall.passed / overall.total,
        durationMs: overall.durationMs,
        failureClasses: { ...overall.failureClasses },
        targets: [...byTarget]
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([target, totals]) => totals.targetStatistics(target)),
        metrics: [...metrics]
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([name, { total, cases }]) => ({ name, mean: total / cases, cases })),
      };
    },
  };
}

/** Counts and sums of some results, added in run order. */
class Totals {
  total = 0;
  passed = 0;
  graded = 0;
  scoreSum = 0;
  durationMs = 0;
  cached = 0;
  tokens: TokenTotals | null = null;
  costUsd: number | null = null;
  agentCostUsd: number | null = null;
  judgeCostUsd: number | null = null;
  failureClasses: Partial<Record<FailureClass, number>> = {};

  add(result: EvaluationResult): void {
    this.total++;
    if (result.error !== undefined || !result.passed) {
      const failure = result.failureClass ?? 'agent';
      this.failureClasses[failure] = (this.failureClasses[failure] ?? 0) + 1;
    }
    this.durationMs += result.durationMs;
    if (result.error === undefined) {
      this.graded++;
      this.scoreSum += result.score;
      if (result.passed) this.passed++;
    }
    if (result.cached === true) this.cached++;
    // The agent's calls and the judge calls that graded its answer both count.
    if (result.costUsd !== undefined) {
      this.costUsd = (this.costUsd ?? 0) + result.costUsd;
      this.agentCostUsd = (this.agentCostUsd ?? 0) + result.costUsd;
    }
    if (result.judgeCostUsd !== undefined) {
      this.costUsd = (this.costUsd ?? 0) + result.judgeCostUsd;
      this.judgeCostUsd = (this.judgeCostUsd ?? 0) + result.judgeCostUsd;
    }
    if (result.usage !== undefined) this.tokens = addUsage(this.tokens, result.usage);
    if (result.judgeUsage !== undefined) this.tokens = addUsage(this.tokens, result.judgeUsage);
  }

  targetStatistics(target: string): TargetStatistics {
    return {
      target,
      total: this.total,
      passed: this.passed,
      failed: this.graded - this.passed,
      errored: this.total - this.graded,
      graded: this.graded,
      passRate: this.total === 0 ? null : this.passed / this.total,
      mean: this.graded === 0 ? null : this.scoreSum / this.graded,
      tokens: this.tokens,
      costUsd: this.costUsd,
      agentCostUsd: this.agentCostUsd,
      judgeCostUsd: this.judgeCostUsd,
      durationMs: this.durationMs,
    };
  }
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
 * Keeps in `kept` the `count` results with the lowest scores, ascending, ties in run order:
 * what sorting them all would give, one result at a time.
 */
function keepLowest(kept: EvaluationResult[], result: EvaluationResult, count: number): void {
  if (count <= 0) return;
  if (kept.length === count && result.score >= kept[count - 1]!.score) return;
  // After every kept result of the same score, so ties stay in run order.
  let at = kept.length;
  while (at > 0 && kept[at - 1]!.score > result.score) at--;
  kept.splice(at, 0, result);
  if (kept.length > count) kept.pop();
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
