import type { EvaluatorRegistry } from './evaluator.js';

/**
 * The registered types for a message, `not_<type>` forms summed up in one
 * entry: `code_judge, command, …, or not_<type> of an answer check`.
 */
export function knownTypes(registry: EvaluatorRegistry): string {
  const types = registry.types();
  const plain = types.filter((type) => !(type.startsWith('not_') && registry.has(type.slice(4))));
  const negated = plain.length < types.length ? ', or not_<type> of an answer check' : '';
  return `${plain.join(', ')}${negated}`;
}
