import type { ResolvedTarget } from '../provider/resolved-target.js';
import { toSnakeCase } from '../util/case-keys.js';
import type { SourceLocator, SourcePosition } from '../yaml/yaml-source.js';

/**
 * Where each setting of a target is written, keyed by its snake_case path
 * joined with `.` (`command_template`, `healthcheck.url`); `''` is the target
 * itself. Plain data, so targets stay cloneable.
 */
export function targetPositions(
  settings: Record<string, unknown>,
  targetPath: readonly PropertyKey[],
  source: SourceLocator,
): Record<string, SourcePosition> {
  const positions: Record<string, SourcePosition> = {};
  const own = source.locate(targetPath);
  if (own !== undefined) positions[''] = own;
  // `written` locates keys in the file (nested settings keep the spelling written, e.g.
  // `healthcheck.timeoutSeconds`); `named` is the snake_case path issues use.
  const visit = (value: unknown, written: string[], named: string[]) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
    for (const [key, entry] of Object.entries(value)) {
      const position = source.locateKey([...targetPath, ...written], key);
      const name = [...named, toSnakeCase(key)];
      if (position !== undefined) {
        // Under both spellings: option paths are snake_case, names such as env variables are not.
        positions[name.join('.')] = position;
        positions[[...written, key].join('.')] = position;
      }
      visit(entry, [...written, key], name);
    }
  };
  visit(settings, [], []);
  return positions;
}

/**
 * The position of the setting `path` names in `target`'s file, else of its
 * nearest written parent, else of the target: where `validate` and `eval`
 * both point an issue about a target.
 */
export function targetIssuePosition(
  target: ResolvedTarget,
  path: readonly (string | number)[] | undefined,
): { file: string; line?: number; column?: number } {
  const positions = target.positions ?? {};
  const segments = (path ?? []).map(String);
  for (let length = segments.length; length >= 0; length--) {
    const position = positions[segments.slice(0, length).join('.')];
    if (position !== undefined) return { file: target.filePath, ...position };
  }
  return { file: target.filePath, ...(target.line === undefined ? {} : { line: target.line }) };
}
