import type { EvaluationResult } from '../orchestrator/evaluation-result.js';
import {
  computeRunStatistics,
  createRunStatisticsAccumulator,
  type RunStatistics,
} from './run-statistics.js';

/** What a run keeps of its results as they finish, and the statistics of them. */
export interface ResultTally {
  /** Takes one finished result (in finishing order). */
  add(result: EvaluationResult): void;
  /** What is kept: every result (`true`), a summary of each (`false`, see `summaryOf`), or none (`'none'`). */
  readonly results: EvaluationResult[];
  /** The statistics of every result added, whatever was kept of them. */
  statistics(): RunStatistics;
}

/**
 * A tally keeping whole results (`true`), a summary of each (`false`: the statistics
 * need little of a result, so large runs keep just that), or none (`'none'`: only the
 * statistics' running totals, for runs of millions of cases).
 */
export function createResultTally(retain: boolean | 'none'): ResultTally {
  const results: EvaluationResult[] = [];
  if (retain === 'none') {
    const accumulator = createRunStatisticsAccumulator();
    return {
      add: (result) => accumulator.add(result),
      results,
      statistics: () => accumulator.statistics(),
    };
  }
  return {
    add: retain ? (result) => results.push(result) : (result) => results.push(summaryOf(result)),
    results,
    statistics: () => computeRunStatistics(results),
  };
}

/**
 * What run statistics read of a result: its answer, trace and evaluator
 * details dropped, so large runs can keep one per case.
 */
export function summaryOf(result: EvaluationResult): EvaluationResult {
  // Every field written out, in one order: `{ ...result, candidateAnswer: '' }` gave each
  // summary a hidden class of its own in V8 (about 500 bytes, 50 MiB at 100,000 cases).
  return {
    timestamp: result.timestamp,
    evalId: result.evalId,
    dataset: result.dataset,
    evalFile: result.evalFile,
    target: result.target,
    conversationId: result.conversationId,
    score: result.score,
    passed: result.passed,
    hits: [],
    misses: result.misses.slice(0, 1),
    reasoning: result.passed ? '' : result.reasoning,
    candidateAnswer: '',
    evaluatorResults: [],
    metrics: result.metrics,
    attempts: result.attempts,
    durationMs: result.durationMs,
    usage: result.usage,
    costUsd: result.costUsd,
    cached: result.cached,
    judgeUsage: result.judgeUsage,
    judgeCostUsd: result.judgeCostUsd,
    error: result.error,
    failureClass: result.failureClass,
    traceSummary: result.traceSummary,
    repeats: result.repeats,
    trace: undefined,
    outputMessages: undefined,
  };
}
