import { type AnyCommand, runCommandLine } from './run-command-line.js';
import { readVersion } from './version.js';

/** citty's subcommands, each loaded when the command line names it (or `--help` lists them). */
const commands: Record<string, () => Promise<AnyCommand>> = {
  eval: () => import('./commands/eval.js').then((module) => module.default),
  validate: () => import('./commands/validate.js').then((module) => module.default),
  init: () => import('./commands/init.js').then((module) => module.default),
  migrate: () => import('./commands/migrate.js').then((module) => module.default),
  results: () => import('./commands/results.js').then((module) => module.default),
  compare: () => import('./commands/compare.js').then((module) => module.default),
  grade: () => import('./commands/grade.js').then((module) => module.default),
  view: () => import('./commands/view.js').then((module) => module.default),
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
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    process.stdout.write(`${readVersion()}\n`);
    return 0;
  }
  // citty has no help command: `agentv help [command]` is `agentv [command] --help`.
  return runCommandLine(main, argv[0] === 'help' ? [...argv.slice(1), '--help'] : argv);
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
