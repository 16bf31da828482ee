import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';

/** Node's spawn options as `execChild` takes them: `env` is the child's whole environment. */
export interface ExecChildOptions extends SpawnOptions {
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * The one place AgentV starts a process: `file` with `args` through Node's `spawn`, `options`
 * as given (`detached`, `stdio` descriptors, `cwd`), and `stdin`, when given, written to the
 * child's stdin pipe, which is then closed (a write to a child that has exited, EPIPE, is
 * ignored). The program is found on `options.env.PATH` exactly as `spawn` finds it, and the
 * child gets `options.env` (inherited keys included) and nothing else. Throws what `spawn`
 * throws (an argument the OS cannot take); a failed start is the child's `error` event.
 *
 * Why not tinyexec, the design's library for running commands: see CONTRIBUTING, "Why the
 * runner calls spawn directly".
 */
export function execChild(
  file: string,
  args: readonly string[],
  options: ExecChildOptions,
  stdin?: string,
): ChildProcess {
  const child = spawn(file, args, options as SpawnOptions);
  if (stdin !== undefined && child.stdin) {
    // A process may exit without reading its input; the write then fails with EPIPE.
    child.stdin.on('error', () => {});
    child.stdin.end(stdin);
  }
  return child;
}
