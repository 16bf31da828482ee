import type { TurnAggregation } from '../eval-file/eval-case.js';
import type { EvaluatorResult } from '../evaluators/evaluator.js';
import { reaches, verdictFor } from '../evaluators/verdict.js';
import type { ConversationTurnResult } from './conversation-turn-result.js';

/**
 * The grade of a conversation's graded turns as one grader result named
 * `turns`: `all` scores their mean and passes when every graded turn passed;
 * `mean` and `min` score the mean or the lowest score and pass on a passing
 * score; `last` is the last graded turn's grade. An errored turn scores 0.
 * Undefined when no turn has graders.
 */
export function turnsResult(
  turns: readonly ConversationTurnResult[],
  aggregation: TurnAggregation,
): EvaluatorResult | undefined {
  const graded = turns.filter((turn) => turn.score !== undefined);
  if (graded.length === 0) return undefined;
  const scores = graded.map((turn) => turn.score!);
  const mean = scores.reduce((sum, score) => sum + score, 0) / scores.length;
  const last = graded.at(-1)!;
  let score: number;
  let passed: boolean;
  if (aggregation === 'all') {
    score = mean;
    passed = graded.every((turn) => turn.passed === true);
  } else if (aggregation === 'last') {
    score = last.score!;
    passed = last.passed === true;
  } else {
    score = aggregation === 'min' ? Math.min(...scores) : mean;
    passed = verdictFor(score) === 'pass';
  }
  const failed = graded.filter((turn) => turn.passed !== true);
  const scoreVerdict = verdictFor(score);
  return {
    name: 'turns',
    type: 'turns',
    score,
    weight: 1,
    verdict: passed ? 'pass' : scoreVerdict === 'pass' ? 'fail' : scoreVerdict,
    hits: graded.filter((turn) => turn.passed === true).map((turn) => `turn ${turn.turn} passed`),
    misses: failed.map(
      (turn) =>
        `turn ${turn.turn}: ${turn.error ?? (turn.evaluatorResults.flatMap((result) => result.misses).join('; ') || `score ${turn.score!.toFixed(2)}`)}`,
    ),
    reasoning: `${graded.length - failed.length} of ${graded.length} graded turns passed (aggregation: ${aggregation})`,
  };
}

/** A case's score and pass from its grader results, as `gradeCase` combines them. */
export function combineResults(
  results: readonly EvaluatorResult[],
  threshold: number | undefined,
): { score: number; passed: boolean } {
  let totalWeight = 0;
  let weightedScores = 0;
  let allPass = true;
  let failsCase = false;
  let errored = false;
  for (const result of results) {
    if (result.error !== undefined) errored = true;
    if (result.weight <= 0 || result.verdict === 'error') continue;
    totalWeight += result.weight;
    weightedScores += result.score * result.weight;
    if (result.failsCase) failsCase = true;
    if (result.verdict !== 'pass') allPass = false;
  }
  const score = totalWeight > 0 ? weightedScores / totalWeight : 0;
  const passed =
    !errored &&
    !failsCase &&
    totalWeight > 0 &&
    (threshold !== undefined ? reaches(score, threshold) : allPass);
  return { score, passed };
}
