import { closestMatch } from './closest-match.js';

/**
 * A hint for an unknown name: `did you mean "contains"? Or use one of: …` when a
 * known name is a likely typo of `name` (core's `closestMatch`), else
 * `use one of: …`. Hints are printed in parentheses (`(hint: …)`), so this adds
 * none. `format` writes a name as messages show it (`{PROMPT}`).
 */
export function didYouMean(
  name: string,
  known: readonly string[],
  format: (name: string) => string = (known) => known,
): string {
  const list = known.map(format).join(', ');
  const match = closestMatch(name, known);
  return match === undefined
    ? `use one of: ${list}`
    : `did you mean "${format(match)}"? Or use one of: ${list}`;
}
