import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { BIN, type CliRun, collectRun } from './project.js';

/**
 * Starts the built CLI under a pseudo-terminal (util-linux `script`), so its
 * stdin and stdout are TTYs; what is written to the child's stdin is typed
 * into the terminal (`\x03` is Ctrl-C). Its stdout is what the terminal
 * showed (stdout and stderr together, CRLF line ends). The shell `script`
 * starts ($SHELL, or /bin/sh without it) `exec`s agentv, so no shell stays
 * between the terminal and agentv to be killed by Ctrl-C and exit with 130.
 */
export function spawnInTerminal(
  args: string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
): ChildProcessWithoutNullStreams {
  const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
  const command = `exec ${[process.execPath, BIN, ...args].map(quote).join(' ')}`;
  const base: Record<string, string | undefined> = { ...process.env, TERM: 'xterm' };
  delete base.CI;
  delete base.NO_COLOR;
  return spawn('script', ['-qfec', command, '/dev/null'], {
    cwd,
    env: { ...base, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Runs the built CLI under a pseudo-terminal; `input` is typed into the terminal. */
export function runInTerminal(
  args: string[],
  cwd: string,
  options: { env?: Record<string, string | undefined>; input?: string } = {},
): Promise<CliRun> {
  const child = spawnInTerminal(args, cwd, options.env);
  const run = collectRun(child);
  if (options.input !== undefined) child.stdin.write(options.input);
  return run;
}
