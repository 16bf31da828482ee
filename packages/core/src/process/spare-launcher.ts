import type { ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { isFolder } from '../util/is-folder.js';
import { shellQuote } from '../util/shell-quote.js';
import { callsEnterCgroups } from './call-cgroup.js';
import { execChild } from './exec-child.js';
import { makeTempDirSync } from './make-temp-dir.js';
import { guardProcess, type ProcessGuard } from './process-guard.js';
import { DEFAULT_KILL_GRACE_MS } from './run-process.js';
import { launchArgv } from './spawn-argv.js';

/**
 * A process started ahead of time for the next call: `/bin/sh` in a new session and a call
 * cgroup it has already entered, its stdin, stdout and stderr pipes open, waiting on a fourth
 * pipe for the path of a script that execs the call's command. Entering a cgroup costs the
 * kernel a wait for an RCU grace period (tens of ms after an idle moment); made while the
 * previous call runs, that wait is off the next call's path, and the command still starts
 * inside its cgroup.
 */
export interface LaunchedProcess {
  readonly child: ChildProcess;
  readonly guard: ProcessGuard;
}

interface Spare extends LaunchedProcess {
  readonly control: Socket;
  ready: boolean;
  onExit: () => void;
}

let spare: Spare | undefined;
let scriptDir: string | undefined;
let scripts = 0;

// `read` fails when AgentV closes the pipe (or is gone): the shell then exits.
const LAUNCHER = 'IFS= read -r script <&3 || exit 125; exec 3<&-; . "$script"';

/**
 * Hands the spare process over to run `command` in `cwd` with exactly `env` (and `PWD`, as
 * the shell that enters a cgroup sets it), or returns undefined when there is none or the
 * command must be spawned directly: its program is not found (the spawn error is then
 * Node's), `cwd` is not a folder, or a value holds a NUL byte.
 */
export function takeSpare(
  command: string | readonly string[],
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): LaunchedProcess | undefined {
  const current = spare;
  if (current === undefined || !current.ready || !alive(current.child)) return undefined;
  const argv = launchArgv(command, cwd, env);
  if (argv === undefined || argv[0]!.includes('=') || !isFolder(cwd)) return undefined;
  const words: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && name !== 'PWD') words.push(`${name}=${value}`);
  }
  words.push(`PWD=${cwd}`, ...argv);
  if (cwd.includes('\0') || words.some((word) => word.includes('\0'))) return undefined;
  const text = `cd -- ${shellQuote(cwd)} || exit 127\nexec /usr/bin/env -i -- ${words.map(shellQuote).join(' ')}\n`;
  let script: string;
  try {
    scriptDir ??= makeTempDirSync('launch');
    script = join(scriptDir, `call-${++scripts}.sh`);
    writeFileSync(script, text, { mode: 0o600 });
  } catch {
    return undefined;
  }
  spare = undefined;
  const { child, guard, control, onExit } = current;
  child.off('exit', onExit);
  child.once('exit', () => rmSync(script, { force: true }));
  control.end(`${script}\n`);
  child.ref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as Socket).ref();
  return { child, guard };
}

/**
 * Starts a spare process for the next call when there is none, where calls enter cgroups.
 * It holds nothing open that keeps AgentV running, and is stopped with the run's other
 * processes when AgentV exits or is killed.
 */
export function prepareSpare(): void {
  if (spare !== undefined || !callsEnterCgroups()) return;
  const guard = guardProcess(DEFAULT_KILL_GRACE_MS);
  if (guard.enter === '') {
    guard.ended();
    return;
  }
  let child: ChildProcess;
  try {
    child = execChild('/bin/sh', ['-c', `${guard.enter}${LAUNCHER}`], {
      cwd: '/',
      env: {},
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    });
  } catch {
    guard.ended();
    return;
  }
  const control = child.stdio[3] as Socket;
  const made: Spare = {
    child,
    guard,
    control,
    ready: false,
    onExit: () => {
      if (spare === made) spare = undefined;
      guard.ended();
    },
  };
  spare = made;
  installExitHook();
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr, control]) {
    (stream as Socket).unref();
  }
  child.on('error', () => {});
  control.on('error', () => {});
  child.once('error', made.onExit);
  child.once('exit', made.onExit);
  child.once('spawn', () => {
    guard.started(child.pid!);
    made.ready = true;
  });
}

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    if (scriptDir !== undefined) rmSync(scriptDir, { recursive: true, force: true });
  });
}
