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
