import type { SpawnOptions } from 'node:child_process';
import { type Result, x } from 'tinyexec';

/** Node's spawn options as `execChild` takes them: `env` is the child's whole environment. */
export interface ExecChildOptions extends SpawnOptions {
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * Starts `file` with `args` through tinyexec's `x()`, `options` handed to Node's `spawn` as
 * given (`detached`, `stdio` descriptors, `cwd`), and `stdin`, when given, written to the
 * child's stdin pipe, which is then closed (a write to a child that has exited, EPIPE, is
 * ignored). The program is found on `options.env.PATH` exactly as `spawn` finds it, and the
 * child gets `options.env` and nothing else.
 *
 * The returned result's `process` is the child; awaiting the result waits for its `close`
 * (never rejects for a non-zero exit) and rejects with the spawn error when it could not
 * start. A `spawn` that throws (an argument the OS cannot take) throws here. Timeouts,
 * aborts and kills are the caller's: they stop a whole process group (see
 * `createProcessGroupTerminator`), which tinyexec's `timeout` and `signal` do not.
 */
export function execChild(
  file: string,
  args: readonly string[],
  options: ExecChildOptions,
  stdin?: string,
): Result {
  const execution = x(file, args, {
    // tinyexec otherwise puts every node_modules/.bin above cwd, and Node's own folder, first
    // on PATH, and a command could run another program than the user's PATH names.
    nodePath: false,
    nodeOptions: { ...options, env: onlyThese(options.env) as NodeJS.ProcessEnv },
    ...(stdin === undefined ? {} : { stdin }),
  });
  // A process may exit without reading its input; the write then fails with EPIPE.
  execution.process?.stdin?.on('error', () => {});
  return execution;
}

/**
 * `env` as tinyexec must get it for the child to see `env` alone: tinyexec spreads `env` over
 * a copy of `process.env`, so every variable of `process.env` is first given as undefined,
 * which `spawn` leaves out. The spread copies own keys only, and `spawn` reads inherited
 * ones too (the cli provider layers a call's variables over a shared environment that way):
 * they are copied here.
 */
function onlyThese(
  env: Readonly<Record<string, string | undefined>>,
): Readonly<Record<string, string | undefined>> {
  if (env === process.env) return env;
  const flat: Record<string, string | undefined> = {};
  for (const key of Object.keys(process.env)) flat[key] = undefined;
  for (const key in env) flat[key] = env[key];
  return flat;
}
