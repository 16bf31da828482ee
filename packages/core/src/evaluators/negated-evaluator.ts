import type { Evaluator } from './evaluator.js';

/**
 * `not_<type>` for a deterministic evaluator: the same options and checks, graded
 * the other way round (score 1 - s, hits and misses swapped), as `negate: true` does.
 */
export function negatedEvaluator(evaluator: Evaluator): Evaluator {
  const { validate, options } = evaluator;
  return {
    type: `not_${evaluator.type}`,
    ...(options === undefined ? {} : { options }),
    ...(validate === undefined
      ? {}
      : { validate: (config, registry) => validate.call(evaluator, config, registry) }),
    async evaluate(config, context) {
      const outcome = await evaluator.evaluate(config, context);
      const score = Math.min(1, Math.max(0, outcome.score));
      return { score: 1 - score, hits: outcome.misses, misses: outcome.hits };
    },
  };
}
