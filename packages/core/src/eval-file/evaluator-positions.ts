import type { SourceLocator, SourcePosition } from '../yaml/yaml-source.js';
import type { EvalCase, EvaluatorPosition } from './eval-case.js';
import type { EvaluatorConfig } from './evaluator-config.js';

/**
 * Where each evaluator of a list is written: `name` → its `type` value,
 * `name.option` → that option's value, and `name.option:key` → the option's
 * key (where an unknown key is reported). Plain data, so cases stay cloneable.
 * `shared`: the list is the file's `execution.evaluators` (every position says so).
 */
export function evaluatorPositions(
  evaluators: readonly EvaluatorConfig[],
  listPath: readonly PropertyKey[],
  source: SourceLocator,
  shared = false,
): Record<string, EvaluatorPosition> {
  const positions: Record<string, EvaluatorPosition> = {};
  const at = (position: SourcePosition): EvaluatorPosition =>
    shared ? { ...position, shared: true } : position;
  evaluators.forEach((config, index) => {
    const entryPath = [...listPath, index];
    const type = source.locate([...entryPath, 'type']) ?? source.locate(entryPath);
    if (type !== undefined) positions[config.name] = at(type);
    for (const key of Object.keys(config)) {
      if (key === 'name' || key === 'type') continue;
      const option = source.locate([...entryPath, key]);
      if (option !== undefined) positions[`${config.name}.${key}`] = at(option);
      const written = source.locateKey(entryPath, key);
      if (written !== undefined) positions[`${config.name}.${key}:key`] = at(written);
    }
  });
  return positions;
}

/**
 * The position of an issue about evaluator `name` of `evalCase` (its option
 * `path[0]` when written, else its `type`), else of the case. `shared` when
 * the evaluator is one of the file's `execution.evaluators`: the issue is the
 * file's, not the case's.
 */
export function evaluatorIssuePosition(
  evalCase: EvalCase,
  name: string,
  path: readonly (string | number)[] | undefined,
): { line?: number; column?: number; shared?: boolean } {
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
