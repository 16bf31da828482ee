import type { EvaluatorResult } from './evaluator.js';

/**
 * A case's named metrics (`metric:` on its graders, a composite's members
 * included): each name's mean score over the graders reporting to it that did
 * not error. Undefined when no grader names a metric.
 */
export function caseMetrics(
  results: readonly EvaluatorResult[],
): Record<string, number> | undefined {
  // Most cases name no metric: nothing is allocated for them.
  if (!results.some(namesMetric)) return undefined;
  const sums = new Map<string, { total: number; count: number }>();
  const visit = (result: EvaluatorResult) => {
    if (result.metric !== undefined && result.verdict !== 'error') {
      const sum = sums.get(result.metric) ?? { total: 0, count: 0 };
      sum.total += result.score;
      sum.count++;
      sums.set(result.metric, sum);
    }
    result.members?.forEach(visit);
  };
  results.forEach(visit);
  if (sums.size === 0) return undefined;
  const metrics: Record<string, number> = {};
  for (const [name, { total, count }] of [...sums].sort(([a], [b]) => (a < b ? -1 : 1))) {
    metrics[name] = total / count;
  }
  return metrics;
}

/** True when the result or one of its members (at any depth) names a metric. */
function namesMetric(result: EvaluatorResult): boolean {
  return result.metric !== undefined || result.members?.some(namesMetric) === true;
}
