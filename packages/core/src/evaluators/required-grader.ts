import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import type { EvaluatorResult } from './evaluator.js';
import { reaches } from './verdict.js';

/**
 * Why `result` of the grader configured by `config` fails its case under
 * `required`, or undefined when it does not. The bar is `required` when it is
 * a number, else `threshold` (the case's), else the grader's own pass (verdict
 * `pass`). A grader that errored is not judged here: its error fails the case.
 */
export function requiredMiss(
  config: EvaluatorConfig,
  result: EvaluatorResult,
  threshold: number | undefined,
): string | undefined {
  const { required } = config;
  if (required === undefined || required === false || result.verdict === 'error') return undefined;
  const who = `required grader "${result.name}" (${result.type})`;
  const score = result.score.toFixed(2);
  if (typeof required === 'number' || threshold !== undefined) {
    const bar = typeof required === 'number' ? required : threshold!;
    if (reaches(result.score, bar)) return undefined;
    const of = typeof required === 'number' ? 'its bar' : "the case's threshold";
    return `${who} scored ${score}, below ${of} ${bar}, so the case fails with score 0`;
  }
  if (result.verdict === 'pass') return undefined;
  return `${who} did not pass (score ${score}, verdict ${result.verdict}), so the case fails with score 0`;
}

/**
 * Whether `result` counts as passing where a case needs every grader to pass:
 * a `required: <score>` grader passes at that score, any other at verdict `pass`.
 */
export function passesOwnMark(config: EvaluatorConfig, result: EvaluatorResult): boolean {
  if (typeof config.required === 'number') {
    return (
      result.verdict !== 'error' && !result.failsCase && reaches(result.score, config.required)
    );
  }
  return result.verdict === 'pass';
}
