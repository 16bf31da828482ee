import { existsSync } from 'node:fs';
import {
  type ProcessOutcome,
  ProviderError,
  type RunProcessOptions,
  runProcess,
} from '@agentv/core/provider-utils';

/** How to run one rendered command: `RunProcessOptions` with a shell command line. */
export interface RunCommandOptions extends Omit<RunProcessOptions, 'command'> {
  /** The shell command line, run as `/bin/sh -c command`. */
  command: string;
  /**
   * The same command as a program and its arguments, when it needs no shell: run without
   * one (a process less per call). When it cannot start (a program not found or not
   * executable), `command` runs through the shell instead, which reports it as it always
   * has (`not found`, exit 127).
   */
  argv?: readonly string[];
}

/** What a finished (or stopped) command did. */
export type CommandOutcome = ProcessOutcome;

/**
 * Runs `command` with core's `runProcess` (its own process group, stdin
 * closed, output captured in full, SIGTERM then SIGKILL to the group on
 * timeout or abort, leftovers stopped). Never throws for a command that ran;
 * throws a `ProviderError` when it could not be started, retryable unless the
 * cause is permanent (missing cwd or shell, invalid arguments or environment,
 * E2BIG).
 */
export async function runCommand(options: RunCommandOptions): Promise<CommandOutcome> {
  const { argv, ...shellOptions } = options;
  if (argv !== undefined) {
    try {
      return await runProcess({ ...shellOptions, command: argv });
    } catch {
      // Not started: the shell's attempt gives the error users know (or runs what libuv would not).
    }
  }
  try {
    // runProcess opens its files and starts the process (or asks the spawn helper to) before it
    // first waits; callers may rely on that.
    return await runProcess(shellOptions);
  } catch (error) {
    throw startError(error, options.cwd);
  }
}

// Spawn errors no retry can fix: the command line or environment is unusable,
// or /bin/sh or cwd is missing or not accessible. Anything else (EAGAIN,
// EMFILE, ENOMEM, ...) is the system being busy, and another attempt may work.
const PERMANENT_SPAWN_ERRORS = new Set(['E2BIG', 'EACCES', 'ENOENT', 'ENOTDIR', 'EPERM']);

/** The `ProviderError` for a command that could not be started in `cwd`. */
export function startError(error: unknown, cwd: string): ProviderError {
  // Node reports a missing cwd as `spawn /bin/sh ENOENT`, which points at the wrong thing.
  if (!existsSync(cwd)) {
    return new ProviderError(
      `could not start the command: working directory ${cwd} does not exist`,
      {
        retryable: false,
        cause: error,
        hint: 'create the directory or fix cwd in the target',
      },
    );
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  const reason = error instanceof Error ? error.message : String(error);
  const permanent = PERMANENT_SPAWN_ERRORS.has(code) || code.startsWith('ERR_INVALID_ARG');
  return new ProviderError(`could not start the command in ${cwd}: ${reason}`, {
    retryable: !permanent,
    cause: error,
    hint: spawnHint(code),
  });
}

function spawnHint(code: string): string {
  if (code === 'EMFILE' || code === 'ENFILE') {
    return 'too many open files: lower --workers or raise the limit (ulimit -n)';
  }
  if (code === 'EAGAIN' || code === 'ENOMEM') {
    return 'the system is out of processes or memory: lower --workers';
  }
  if (code === 'E2BIG') {
    return 'the command and environment are too large: pass long values through {PROMPT_FILE} or {INPUT_FILE}';
  }
  return 'check that /bin/sh exists and cwd is a readable directory';
}
