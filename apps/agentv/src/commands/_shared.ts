import { UsageError } from '@agentv/core/internal';
import { closestMatch } from '@agentv/core/provider-utils';
import type { ArgsDef } from 'citty';

/** Flags shared by commands that read targets. */
export const targetArgs = {
  targets: {
    type: 'string',
    description: 'Path of the targets file (default: found from the eval file upwards)',
    valueHint: 'PATH',
  },
  target: {
    type: 'string',
    description: 'Run every case against this target, overriding the eval files',
    valueHint: 'NAME',
  },
} as const satisfies ArgsDef;

export const verboseArg = {
  verbose: {
    type: 'boolean',
    description: 'Print the rendered command, cwd, duration and stderr of every call',
  },
} as const satisfies ArgsDef;

/** A negative number given as a flag's value (`-1`, `-.5`), not a flag. */
const NEGATIVE_NUMBER = /^-(\d|\.\d)/;

/**
 * Rejects flags the command does not define. citty ignores them silently,
 * which would turn a typo like `--worker 2` into a run with the wrong settings.
 */
export function rejectUnknownFlags(
  rawArgs: readonly string[],
  args: ArgsDef,
  command: string,
): void {
  const known = new Set<string>(['help', 'h']);
  for (const [name, def] of Object.entries(args)) {
    if (def.type === 'positional') continue;
    known.add(name);
    known.add(toKebab(name));
    if (def.type === 'boolean') known.add(`no-${name}`);
    const aliases = 'alias' in def && def.alias ? def.alias : [];
    for (const alias of Array.isArray(aliases) ? aliases : [aliases]) known.add(alias);
  }
  for (const arg of rawArgs) {
    if (arg === '--') break;
    if (!arg.startsWith('-') || arg === '-') continue;
    // A negative number is a flag's value (`--agent-timeout -1`), which the flag's own check judges.
    if (NEGATIVE_NUMBER.test(arg)) continue;
    const name = arg.replace(/^-{1,2}/, '').split('=')[0]!;
    if (known.has(name)) continue;
    const suggestion = closestMatch(
      name,
      [...known].filter((candidate) => candidate.length > 1),
      Math.max(2, Math.floor(name.length / 3)),
    );
    throw new UsageError(`unknown option ${arg.split('=')[0]} for "agentv ${command}"`, {
      hint: suggestion
        ? `did you mean --${suggestion}? see agentv ${command} --help`
        : `see agentv ${command} --help`,
    });
  }
}

/** Every value of a string flag given several times (`--eval-id a --eval-id b`). */
export function repeatedFlag(rawArgs: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let index = 0; index < rawArgs.length; index++) {
    const arg = rawArgs[index]!;
    if (arg === '--') break;
    if (arg === `--${name}`) {
      const value = rawArgs[index + 1];
      if (value === undefined || value.startsWith('--')) {
        throw new UsageError(`--${name} needs a value`, { hint: `write --${name} VALUE` });
      }
      values.push(value);
      index++;
    } else if (arg.startsWith(`--${name}=`)) {
      values.push(arg.slice(name.length + 3));
    }
  }
  return values;
}

/**
 * A string flag's value; undefined when the flag is absent. citty reads a flag
 * given without a value (`--out` at the end of the line) as `''`, which would
 * otherwise pass for "not given" or for an empty path.
 */
export function stringFlag(value: unknown, flag: string): string | undefined {
  if (value === undefined) return undefined;
  // `--workers --verbose`: citty took the next flag as the value.
  if (typeof value !== 'string' || value.trim() === '' || value.startsWith('--')) {
    throw new UsageError(`--${flag} needs a value`, { hint: `write --${flag} VALUE` });
  }
  return value;
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

function toKebab(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}
