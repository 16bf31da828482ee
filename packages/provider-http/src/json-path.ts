/**
 * Dot paths into a JSON response: `data.answer`, `choices.0.message.content`.
 * A segment of digits indexes an array (on an object it is a key like any other).
 */

/** Why `path` is malformed, or undefined when it is well formed. */
export function pathProblem(path: string): string | undefined {
  if (path.trim() === '') return 'must not be empty';
  if (/\s/.test(path)) return 'must not contain spaces';
  if (path.startsWith('.') || path.endsWith('.') || path.includes('..')) {
    return 'has an empty segment; write keys separated by single dots, e.g. data.answer';
  }
  if (/[[\]]/.test(path))
    return 'uses brackets; write array indexes as segments, e.g. choices.0.text';
  return undefined;
}

/** The value found at a path, or why nothing was. */
export type PathLookup = { found: true; value: unknown } | { found: false; reason: string };

/**
 * Follows `path` through `value`. When it matches nothing, `reason` names the
 * deepest part reached and what exists there: the keys of an object, the
 * length of an array, or the type of a scalar.
 */
export function lookupPath(value: unknown, path: string): PathLookup {
  const segments = path.split('.');
  let current = value;
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    const reached = index === 0 ? 'the response' : `"${segments.slice(0, index).join('.')}"`;
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(segment)) {
        return {
          found: false,
          reason: `${reached} is an array of ${current.length} (use an index such as 0, not "${segment}")`,
        };
      }
      const position = Number(segment);
      if (position >= current.length) {
        return {
          found: false,
          reason: `${reached} is an array of ${current.length}, so index ${position} does not exist`,
        };
      }
      current = current[position];
      continue;
    }
    if (typeof current === 'object' && current !== null) {
      const record = current as Record<string, unknown>;
      if (!Object.hasOwn(record, segment)) {
        const keys = Object.keys(record);
        return {
          found: false,
          reason:
            keys.length === 0
              ? `${reached} is an empty object`
              : `${reached} has no key "${segment}"; its keys are ${keys.map((key) => `"${key}"`).join(', ')}`,
        };
      }
      current = record[segment];
      continue;
    }
    return { found: false, reason: `${reached} is ${describe(current)}, not an object or array` };
  }
  return { found: true, value: current };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return typeof value;
}
