import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/**
 * The program and arguments that run `command` in `cwd` with the shell text `enter` (see
 * `CallCgroup.enter`) before it: a command line as `/bin/sh -c <enter><command>` (a command
 * near the one-argument limit as an argument the shell evaluates, so `enter` costs it no
 * bytes); an argument list as is, or with `enter` through `/bin/sh -c '<enter>exec "$@"'`.
 * The latter only when the program is found (on `env.PATH` as spawn searches it), so a
 * missing program still fails to spawn with ENOENT or EACCES rather than becoming the
 * shell's exit code 127.
 */
export function spawnArgv(
  command: string | readonly string[],
  enter: string,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): [string, ...string[]] {
  if (typeof command === 'string') {
    if (fitsOneArgument(command, enter)) return ['/bin/sh', '-c', `${enter}${command}`];
    // A command this long would pass the limit with `enter` before it: it goes as an
    // argument of its own, which the shell evaluates (its errors then read `eval: …`).
    return ['/bin/sh', '-c', `${enter}eval "shift; $1"`, '/bin/sh', command];
  }
  const [file, ...args] = command;
  if (file === undefined) throw new TypeError('the command list is empty');
  if (enter === '' || !isProgram(file, cwd, env.PATH)) return [file, ...args];
  return ['/bin/sh', '-c', `${enter}exec "$@"`, 'sh', file, ...args];
}

/**
 * The program and arguments that run `command` once a shell already in its cgroup execs them:
 * a command line through `/bin/sh -c`, an argument list as is. Undefined when the program is
 * not found (as `spawnArgv` finds it), so that the command is spawned directly and fails
 * with Node's spawn error.
 */
export function launchArgv(
  command: string | readonly string[],
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): string[] | undefined {
  if (typeof command === 'string') return ['/bin/sh', '-c', command];
  const [file] = command;
  if (file === undefined || !isProgram(file, cwd, env.PATH)) return undefined;
  return [...command];
}

// Linux's limit on one argument (MAX_ARG_STRLEN), its final NUL included.
const MAX_ARGUMENT_BYTES = 128 * 1024 - 1;

function fitsOneArgument(command: string, enter: string): boolean {
  // At most 3 bytes per UTF-16 unit: most commands are measured without encoding them.
  if (enter === '' || (command.length + enter.length) * 3 <= MAX_ARGUMENT_BYTES) return true;
  return Buffer.byteLength(command) + Buffer.byteLength(enter) <= MAX_ARGUMENT_BYTES;
}

function isProgram(file: string, cwd: string, path: string | undefined): boolean {
  if (file.includes('/')) return isExecutableFile(resolve(cwd, file));
  // Without PATH, spawn (libuv) searches its default: /usr/bin, then /bin.
  for (const dir of (path ?? '/usr/bin:/bin').split(delimiter)) {
    const candidate = join(isAbsolute(dir) ? dir : resolve(cwd, dir), file);
    if (isExecutableFile(candidate)) return true;
  }
  return false;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
