import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import type { EvaluationScore, Evaluator, EvaluatorRegistry } from './evaluator.js';
import { immediateEvaluator } from './immediate-evaluator.js';

/**
 * `not_<type>` for a deterministic evaluator: the same options and checks, graded
 * the other way round (score 1 - s, hits and misses swapped), as `negate: true` does.
 * It waits only when the evaluator does (`evaluateNow`).
 */
export function negatedEvaluator(evaluator: Evaluator): Evaluator {
  const { validate, options } = evaluator;
  const negated = {
    type: `not_${evaluator.type}`,
    ...(options === undefined ? {} : { options }),
    ...(validate === undefined
      ? {}
      : {
          validate: (config: EvaluatorConfig, registry?: EvaluatorRegistry) =>
            validate.call(evaluator, config, registry),
        }),
  };
  if (evaluator.evaluateNow !== undefined) {
    return immediateEvaluator({
      ...negated,
      evaluateNow: (config, context) => inverted(evaluator.evaluateNow!(config, context)),
    });
  }
  return {
    ...negated,
    evaluate: async (config, context) => inverted(await evaluator.evaluate(config, context)),
  };
}

function inverted(outcome: EvaluationScore): EvaluationScore {
  const score = Math.min(1, Math.max(0, outcome.score));
  return { score: 1 - score, hits: outcome.misses, misses: outcome.hits };
}
