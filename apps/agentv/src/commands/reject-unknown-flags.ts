import { UsageError } from '@agentv/core/internal';
import { closestMatch } from '@agentv/core/provider-utils';
import type { ArgsDef, CittyPlugin } from 'citty';

/** A negative number given as a flag's value (`-1`, `-.5`), not a flag. */
const NEGATIVE_NUMBER = /^-(\d|\.\d)/;

/**
 * A citty plugin that refuses, before the command runs, a flag `agentv <command>`
 * does not define, with a did-you-mean. citty 0.2.2 parses with `strict: false`
 * and drops such flags silently, which would turn a typo like `--worker 2` into a
 * run with the wrong settings. citty runs it in `runCommand` (tests included).
 */
export function rejectUnknownFlags(command: string): CittyPlugin {
  return {
    name: 'agentv-reject-unknown-flags',
    async setup({ rawArgs, cmd }) {
      const args = typeof cmd.args === 'function' ? await cmd.args() : await cmd.args;
      checkFlags(rawArgs, args ?? {}, command);
    },
  };
}

function checkFlags(rawArgs: readonly string[], args: ArgsDef, command: string): void {
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

function toKebab(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}
