import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import type { EvaluatorRegistry } from './evaluator.js';

/**
 * Whether grading `config` reads the case's workspace, as its evaluator
 * declares with `needsWorkspace`. A type the registry does not know reads
 * none (the planner reports it as unknown).
 */
export function needsWorkspace(config: EvaluatorConfig, registry: EvaluatorRegistry): boolean {
  if (!registry.has(config.type)) return false;
  const declared = registry.get(config.type).needsWorkspace;
  return typeof declared === 'function' ? declared(config, registry) : declared === true;
}
