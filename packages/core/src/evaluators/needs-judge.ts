import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import type { EvaluatorRegistry } from './evaluator.js';

/**
 * Whether grading `config` asks the judge target, as its evaluator declares
 * with `needsJudge`. A type the registry does not know asks nothing (the
 * planner reports it as unknown).
 */
export function needsJudge(config: EvaluatorConfig, registry: EvaluatorRegistry): boolean {
  if (!registry.has(config.type)) return false;
  const declared = registry.get(config.type).needsJudge;
  return typeof declared === 'function' ? declared(config, registry) : declared === true;
}

/**
 * The other way to grade a case without graders (README, "Which judge"): a judge, named in any of the
 * three places one can be.
 */
export const JUDGE_HINT =
  'or name a judge (`--judge-target`, `execution.judge_target` in the file, or `judge_target` on the target) to grade it with the default llm_judge';
