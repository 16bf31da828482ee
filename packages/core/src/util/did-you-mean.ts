import { closestMatch } from './closest-match.js';

/**
 * A hint for an unknown name: `did you mean "contains"? (use one of: …)` when a
 * known name is a likely typo of `name` (core's `closestMatch`), else
 * `use one of: …`. `format` writes a name as messages show it (`{PROMPT}`).
 */
export function didYouMean(
  name: string,
  known: readonly string[],
  format: (name: string) => string = (known) => known,
): string {
  const list = `use one of: ${known.map(format).join(', ')}`;
  const match = closestMatch(name, known);
  return match === undefined ? list : `did you mean "${format(match)}"? (${list})`;
}
