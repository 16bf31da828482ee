import { parseArgs } from 'node:util';
import { UsageError } from '@agentv/core/internal';

// Values of flags, checked where citty 0.2.2 leaves them as it parsed them: it has no number
// type, keeps only the last value of a flag given twice, reads a flag given without a value
// (`--out` at the end of the line) as '' and takes a following flag as the value
// (`--workers --verbose`).

/** A string flag's value; undefined when the flag is absent. */
export function stringFlag(value: unknown, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '' || value.startsWith('--')) {
    throw new UsageError(`--${flag} needs a value`, { hint: `write --${flag} VALUE` });
  }
  return value;
}

/**
 * Every value of a repeatable string flag (`--eval-id a --eval-id b`), read with node's own
 * parser (the one citty uses) asked to keep them all.
 */
export function repeatedFlag(rawArgs: readonly string[], flag: string): string[] {
  const { values } = parseArgs({
    args: [...rawArgs],
    options: { [flag]: { type: 'string', multiple: true } },
    strict: false,
    allowPositionals: true,
  });
  const given = values[flag];
  if (given === undefined) return [];
  return (Array.isArray(given) ? given : [given]).map((value) => stringFlag(value, flag)!);
}

/** Parses an integer flag value, or throws a usage error naming the flag. */
export function integerFlag(value: unknown, flag: string, minimum: number): number | undefined {
  if (stringFlag(value, flag) === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < minimum) {
    throw new UsageError(`--${flag} must be an integer >= ${minimum}, got "${String(value)}"`);
  }
  return number;
}

/**
 * Parses a number flag value within [minimum, maximum], or throws a usage error
 * naming the flag; `expected` words what it must be (default: the range).
 */
export function numberFlag(
  value: unknown,
  flag: string,
  minimum: number,
  maximum = Number.POSITIVE_INFINITY,
  expected?: string,
): number | undefined {
  if (stringFlag(value, flag) === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number < minimum || number > maximum) {
    const range = Number.isFinite(maximum) ? `between ${minimum} and ${maximum}` : `>= ${minimum}`;
    throw new UsageError(
      `--${flag} must be ${expected ?? `a number ${range}`}, got "${String(value)}"`,
    );
  }
  return number;
}
