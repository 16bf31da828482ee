import type { EvaluatorConfig } from '../evaluators/evaluator-config.js';
import type { SourceLocator, SourcePosition } from '../yaml/yaml-source.js';
import type { EvalCase } from './eval-case.js';

/**
 * Where each evaluator of a list is written: `name` → its `type` value,
 * `name.option` → that option's value, and `name.option:key` → the option's
 * key (where an unknown key is reported). Plain data, so cases stay cloneable.
 */
export function evaluatorPositions(
  evaluators: readonly EvaluatorConfig[],
  listPath: readonly PropertyKey[],
  source: SourceLocator,
): Record<string, SourcePosition> {
  const positions: Record<string, SourcePosition> = {};
  evaluators.forEach((config, index) => {
    const entryPath = [...listPath, index];
    const type = source.locate([...entryPath, 'type']) ?? source.locate(entryPath);
    if (type !== undefined) positions[config.name] = type;
    for (const key of Object.keys(config)) {
      if (key === 'name' || key === 'type') continue;
      const option = source.locate([...entryPath, key]);
      if (option !== undefined) positions[`${config.name}.${key}`] = option;
      const written = source.locateKey(entryPath, key);
      if (written !== undefined) positions[`${config.name}.${key}:key`] = written;
    }
  });
  return positions;
}

/**
 * The position of an issue about evaluator `name` of `evalCase` (its option
 * `path[0]` when written, else its `type`), else of the case.
 */
export function evaluatorIssuePosition(
  evalCase: EvalCase,
  name: string,
  path: readonly (string | number)[] | undefined,
): { line?: number; column?: number } {
  const positions = evalCase.evaluatorPositions ?? {};
  const position =
    (path !== undefined && path.length > 0 ? positions[`${name}.${path[0]}`] : undefined) ??
    positions[name];
  if (position !== undefined) return position;
  if (evalCase.line === undefined) return {};
  return evalCase.column === undefined
    ? { line: evalCase.line }
    : { line: evalCase.line, column: evalCase.column };
}
