import { spawn } from 'node:child_process';
import { BIN, type CliRun, collectRun } from './project.js';

/**
 * Runs the built CLI under a pseudo-terminal (util-linux `script`), so its
 * stdin and stdout are TTYs; `input` is typed into the terminal. The output
 * is what the terminal showed (stdout and stderr together, CRLF line ends).
 */
export function runInTerminal(
  args: string[],
  cwd: string,
  options: { env?: Record<string, string | undefined>; input?: string } = {},
): Promise<CliRun> {
  const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, BIN, ...args].map(quote).join(' ');
  const env: Record<string, string | undefined> = { ...process.env, TERM: 'xterm' };
  delete env.CI;
  delete env.NO_COLOR;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd,
    env: { ...env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const run = collectRun(child);
  if (options.input !== undefined) child.stdin.write(options.input);
  return run;
}
