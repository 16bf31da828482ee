import type { CommandDef } from 'citty';
import { stripColor, useColor } from './use-color.js';
import { readVersion } from './version.js';

// Each command has its own argument types; the map only needs to load and run them.
// biome-ignore lint/suspicious/noExplicitAny: citty's CommandDef is invariant in its args type
type AnyCommand = CommandDef<any>;
type LazyCommand = () => Promise<AnyCommand>;

/** Subcommands load on first use so `--help` and `--version` stay fast. */
const commands: Record<string, LazyCommand> = {
  eval: () => import('./commands/eval.js').then((module) => module.default),
  validate: () => import('./commands/validate.js').then((module) => module.default),
  init: () => import('./commands/init.js').then((module) => module.default),
  results: () => import('./commands/results.js').then((module) => module.default),
  compare: () => import('./commands/compare.js').then((module) => module.default),
  grade: () => import('./commands/grade.js').then((module) => module.default),
  // Listed in the usage; `runCli` turns `agentv help [command]` into `agentv [command] --help`.
  help: async () => ({
    meta: {
      name: 'help',
      description: 'Print the help of agentv or of a command: agentv help [command]',
    },
    args: { command: { type: 'positional', required: false, valueHint: 'COMMAND' } },
  }),
};

export const main: AnyCommand = {
  meta: {
    name: 'agentv',
    version: readVersion(),
    description: 'Evaluate AI agents: run YAML eval cases against a target and grade every answer.',
  },
  subCommands: commands,
};

/**
 * Runs the CLI with `argv` (without node and script) and resolves to the exit
 * code. User errors are printed as one line plus a hint; nothing is thrown.
 */
export async function runCli(argv: string[]): Promise<number> {
  ignoreClosedOutput();
  // `agentv help [command]` is `agentv [command] --help`.
  if (argv[0] === 'help') argv = [...argv.slice(1), '--help'];
  const commandIndex = argv.findIndex((arg) => !arg.startsWith('-'));
  const commandName = commandIndex === -1 ? undefined : argv[commandIndex];
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  // The command as the user typed it (`results merge`), for the hint of an error.
  let commandPath = commandName;
  try {
    if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
      process.stdout.write(`${readVersion()}\n`);
      return 0;
    }
    const { defineCommand, renderUsage, runCommand } = await loadCitty();
    if (commandName === undefined) {
      writeUsage(await renderUsage(main));
      return wantsHelp ? 0 : 2;
    }
    const load = commands[commandName];
    if (!load) {
      const { closestMatch } = await import('@agentv/core/provider-utils');
      const names = Object.keys(commands);
      const match = closestMatch(commandName, names);
      const guess = match === undefined ? '' : `did you mean "${match}"? `;
      process.stderr.write(
        `agentv: unknown command "${commandName}"\n  hint: ${guess}available commands: ${names.join(', ')}; see agentv --help\n`,
      );
      return 2;
    }
    let command = await load();
    let parent: AnyCommand = main;
    let rawArgs = argv.slice(commandIndex + 1);
    // `agentv results merge`: run the subcommand ourselves, since citty drops its result (the exit code).
    const subCommands = await resolveSubCommands(command);
    const subName = rawArgs[0];
    if (subCommands && subName !== undefined && subCommands[subName]) {
      parent = defineCommand({ meta: { name: `agentv ${commandName}` } });
      command = await resolveCommand(subCommands[subName]);
      commandPath = `${commandName} ${subName}`;
      rawArgs = rawArgs.slice(1);
    } else if (subCommands && subName !== undefined && !subName.startsWith('-')) {
      // citty's own message is coloured whatever the output and suggests nothing.
      const { closestMatch } = await import('@agentv/core/provider-utils');
      const names = Object.keys(subCommands);
      const match = closestMatch(subName, names);
      const guess = match === undefined ? '' : `did you mean "${match}"? `;
      process.stderr.write(
        `agentv: unknown command "${subName}" for "agentv ${commandName}"\n  hint: ${guess}available commands: ${names.join(', ')}; see agentv ${commandName} --help\n`,
      );
      return 2;
    }
    if (wantsHelp) {
      writeUsage(await renderUsage(command, parent));
      return 0;
    }
    const { result } = await runCommand(command, { rawArgs });
    return typeof result === 'number' ? result : 0;
  } catch (error) {
    // Loaded only on failure: it pulls in @agentv/core, which `--version` and `--help` never need.
    const { printError } = await import('./print-error.js');
    return printError(error, commandPath);
  }
}

type Citty = typeof import('citty');
let citty: Promise<Citty> | undefined;

/**
 * citty decides once, when it loads, whether to colour (not under NO_COLOR=1,
 * CI, TEST or TERM=dumb). It is loaded with colours on, and what it writes is
 * stripped where `useColor` says no: one rule for `--help` and for runs.
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

/** Usage text as `useColor` says, without the padding citty puts at the end of its lines. */
function writeUsage(usage: string): void {
  const text = usage.replace(/[ \t]+$/gm, '');
  process.stdout.write(`${useColor(process.stdout) ? text : stripColor(text)}\n`);
}

type SubCommands = Record<string, unknown>;

async function resolveSubCommands(command: AnyCommand): Promise<SubCommands | undefined> {
  const value = command.subCommands;
  return (typeof value === 'function' ? await value() : await value) as SubCommands | undefined;
}

async function resolveCommand(value: unknown): Promise<AnyCommand> {
  const resolved = typeof value === 'function' ? await value() : await value;
  return resolved as AnyCommand;
}

const CLOSED_OUTPUT_ERRORS = new Set(['EPIPE', 'EIO', 'ERR_STREAM_DESTROYED']);

/**
 * `agentv eval … | head` closes our stdout early, and a closed terminal fails every
 * write with EIO. The run must still finish and write its result file, so writes to
 * a closed stdout or stderr are dropped instead of crashing the process.
 */
function ignoreClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (CLOSED_OUTPUT_ERRORS.has(error.code ?? '')) return;
      throw error;
    });
  }
}
