import type { EvaluatorEntryInput } from './eval-file-schema.js';
import type { EvaluatorConfig } from './evaluator-config.js';

/** An evaluator list with names filled in, or the names used twice. */
export interface NormalizedEvaluators {
  evaluators: EvaluatorConfig[];
  /** Explicit names that appear more than once, with their list positions. */
  duplicates: { name: string; indexes: number[] }[];
}

/**
 * Fills in evaluator names: an entry without `name` is named after its type,
 * made unique within the list by suffixing `-2`, `-3`, ... Explicit names
 * are kept; one used twice is reported as a duplicate. Option keys are kept
 * as written.
 */
export function normalizeEvaluators(entries: readonly EvaluatorEntryInput[]): NormalizedEvaluators {
  const explicit = new Map<string, number[]>();
  entries.forEach((entry, index) => {
    if (entry.name !== undefined)
      explicit.set(entry.name, [...(explicit.get(entry.name) ?? []), index]);
  });
  const used = new Set(explicit.keys());
  const evaluators = entries.map((entry): EvaluatorConfig => {
    const { type, name, weight, ...options } = entry;
    const resolvedName = name ?? uniqueName(type, used);
    const config: EvaluatorConfig = { name: resolvedName, type, ...options };
    if (weight !== undefined) config.weight = weight;
    return config;
  });
  const duplicates = [...explicit]
    .filter(([, indexes]) => indexes.length > 1)
    .map(([name, indexes]) => ({ name, indexes }));
  return { evaluators, duplicates };
}

function uniqueName(type: string, used: Set<string>): string {
  let name = type;
  for (let suffix = 2; used.has(name); suffix++) name = `${type}-${suffix}`;
  used.add(name);
  return name;
}
