import { UsageError } from '@agentv/core/internal';
import { closestMatch } from '@agentv/core/provider-utils';
import type { ArgsDef, CittyPlugin, CommandDef } from 'citty';
import { ExitCode } from './exit-code.js';
import { helpEpilog } from './help-epilog.js';
import { printError } from './print-error.js';
import { stripColor, useColor } from './use-color.js';

// Each command has its own argument types; running them needs none of them.
// biome-ignore lint/suspicious/noExplicitAny: citty's CommandDef is invariant in its args type
export type AnyCommand = CommandDef<any>;

/**
 * Runs `argv` (without node and the script) through citty's `runCommand`, which
 * parses the flags and finds the subcommand in `subCommands`, and resolves to
 * the exit code: the number the command's `run` returned (0 for anything else),
 * 0 for `--help`, 2 for a missing subcommand, or what `printError` answers for
 * an error. It adds to citty 0.2.2 only what citty lacks (CONTRIBUTING, "The
 * command line and citty"): the result of a subcommand's `run` (`runCommand`
 * returns only the top command's), `--help` at every level (only `runMain` has
 * it, and ends the process), a did-you-mean for an unknown subcommand, and one
 * colour rule (`useColor`) for the usage citty renders.
 */
export async function runCommandLine(root: AnyCommand, argv: string[]): Promise<number> {
  const end = argv.indexOf('--');
  const wantsHelp = (end === -1 ? argv : argv.slice(0, end)).some(isHelp);
  const line: Line = { command: root, names: [], exitCode: ExitCode.Passed, wantsHelp };
  try {
    const { runCommand } = await loadCitty();
    await runCommand(onLine(root, [], line), { rawArgs: argv });
    return line.exitCode;
  } catch (error) {
    if (error !== USAGE) return printError(error, line.names.join(' '));
    await writeUsage(root, line);
    return line.exitCode;
  }
}

/** The command citty got to, its names below the root, and the exit code so far. */
interface Line {
  command: AnyCommand;
  names: readonly string[];
  exitCode: number;
  /** `--help` or `-h` is on the line (before any `--`). */
  wantsHelp: boolean;
}

/** Thrown by a level's check to stop citty and print that level's usage. */
const USAGE = Symbol('usage');

/**
 * `command`, reached through `names`, as citty runs it: a plugin (citty runs
 * plugins before the command's own setup) checks the line at its level, and its
 * `run` and its subcommands' keep their result in `line`.
 */
function onLine(command: AnyCommand, names: readonly string[], line: Line): AnyCommand {
  const { run, subCommands, args } = command;
  return {
    ...command,
    // citty checks required arguments before any plugin runs: `migrate --help` would be
    // refused for its missing FILE instead of showing the usage (which still marks it required).
    ...(line.wantsHelp && args && { args: async () => withoutRequired(await resolve(args)) }),
    plugins: [checkLevel(command, names, line), ...(command.plugins ?? [])],
    ...(run && {
      run: async (context) => {
        const result = await run(context);
        line.exitCode = typeof result === 'number' ? result : ExitCode.Passed;
        return result;
      },
    }),
    // citty resolves only the subcommand the line names, before it parses that one's flags.
    ...(subCommands && {
      subCommands: async () =>
        Object.fromEntries(
          Object.entries(await resolve(subCommands)).map(([name, sub]) => [
            name,
            async () => {
              Object.assign(line, { command: await resolve(sub), names: [...names, name] });
              return onLine(line.command, line.names, line);
            },
          ]),
        ),
    }),
  };
}

/**
 * Asks for the usage (`--help`, `-h`, or a command that needs a subcommand and
 * got none) or refuses an unknown subcommand with a did-you-mean; citty's own
 * message for it is coloured and suggests nothing.
 */
function checkLevel(command: AnyCommand, names: readonly string[], line: Line): CittyPlugin {
  return {
    name: 'agentv-command-line',
    async setup({ rawArgs }) {
      const subCommands = await resolve(command.subCommands);
      // Commands with subcommands take no flags of their own: the first word names the subcommand.
      const end = rawArgs.indexOf('--');
      const name = subCommands && rawArgs.slice(0, end === -1 ? undefined : end).find(isWord);
      if (subCommands && name !== undefined) {
        if (Object.hasOwn(subCommands, name)) return;
        const available = Object.keys(subCommands);
        const match = closestMatch(name, available);
        const path = ['agentv', ...names].join(' ');
        throw new UsageError(`unknown command "${name}"${names.length ? ` for "${path}"` : ''}`, {
          hint: `${match === undefined ? '' : `did you mean "${match}"? `}available commands: ${available.join(', ')}; see ${path} --help`,
        });
      }
      const wantsHelp = (end === -1 ? rawArgs : rawArgs.slice(0, end)).some(isHelp);
      if (!wantsHelp && !subCommands) return;
      line.exitCode = wantsHelp ? ExitCode.Passed : ExitCode.Error;
      throw USAGE;
    },
  };
}

const isWord = (arg: string) => !arg.startsWith('-');
const isHelp = (arg: string) => arg === '--help' || arg === '-h';

/** `args` with no argument required. */
function withoutRequired(args: ArgsDef): ArgsDef {
  return Object.fromEntries(
    Object.entries(args).map(([name, def]) => [name, { ...def, required: false }]),
  );
}

/** The usage citty renders for the command, named from the root, coloured as `useColor` says. */
async function writeUsage(root: AnyCommand, { command, names }: Line): Promise<void> {
  const { renderUsage } = await loadCitty();
  // citty names a command after its parent and itself: the parent's name is the path to it.
  const meta = await resolve(root.meta);
  const path = [meta?.name, ...names.slice(0, -1)].join(' ');
  const parent = names.length === 0 ? undefined : { meta: { ...meta, name: path } };
  // citty pads the last column of every line; a padded line wraps on a narrow terminal.
  const epilog = helpEpilog(command);
  const usage = await renderUsage(command, parent);
  const text = `${usage}${epilog === undefined ? '' : `\n${epilog}\n`}`.replace(/[ \t]+$/gm, '');
  process.stdout.write(`${useColor(process.stdout) ? text : stripColor(text)}\n`);
}

type Citty = typeof import('citty');
let citty: Promise<Citty> | undefined;

/**
 * citty decides once, when it loads, whether to colour (not under NO_COLOR=1,
 * CI, TEST or TERM=dumb; FORCE_COLOR is not read). It is loaded with colours
 * on, and what it writes is stripped where `useColor` says no: one rule for
 * `--help` and for runs. So nothing may import citty's code before this does.
 */
function loadCitty(): Promise<Citty> {
  if (citty) return citty;
  const names = ['NO_COLOR', 'CI', 'TEST', 'TERM'] as const;
  const saved = names.map((name) => [name, process.env[name]] as const);
  for (const name of names) delete process.env[name];
  const restore = () => {
    for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
  };
  citty = import('citty').finally(restore);
  return citty;
}

/** A value citty allows to be given as a function or a promise of it. */
async function resolve<T>(value: T | Promise<T> | (() => T | Promise<T>)): Promise<T> {
  return typeof value === 'function' ? (value as () => T | Promise<T>)() : value;
}
