import type { EvaluationScore, Evaluator } from './evaluator.js';

/** An evaluator as written by a grader that never waits: `evaluateNow` and no `evaluate`. */
export type ImmediateEvaluator = Omit<Evaluator, 'evaluate' | 'evaluateNow'> &
  Required<Pick<Evaluator, 'evaluateNow'>>;

/**
 * The evaluator of a grader that never waits: its `evaluate` is `evaluateNow` as a promise
 * (a throw becomes a rejection), so the grade is written once and both give the same.
 */
export function immediateEvaluator(evaluator: ImmediateEvaluator): Evaluator {
  return {
    ...evaluator,
    async evaluate(config, context): Promise<EvaluationScore> {
      return evaluator.evaluateNow(config, context);
    },
  };
}
