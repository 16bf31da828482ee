import type { ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { isFolder } from '../util/is-folder.js';
import { shellQuote } from '../util/shell-quote.js';
import { callsEnterCgroups } from './call-cgroup.js';
import { type CaptureFile, openCaptureFile } from './capture-file.js';
import { execChild } from './exec-child.js';
import { DEFAULT_KILL_GRACE_MS } from './kill-grace.js';
import { makeTempDirSync } from './make-temp-dir.js';
import { guardProcess, type ProcessGuard } from './process-guard.js';
import { launchArgv } from './spawn-argv.js';

/**
 * A process started ahead of time for the next call: `/bin/sh` in a new session and a call
 * cgroup it has already entered, waiting on a fourth pipe for the path of a script that execs
 * the call's command. Entering a cgroup costs the kernel a wait for an RCU grace period (tens
 * of ms after an idle moment), and a fork of AgentV costs more the larger its heap; made while
 * the previous call runs (or, for a run's first call, while the run loads its cases), both are
 * off the call's path, and the command still starts inside its cgroup.
 *
 * Two kinds: `pipes` (stdin, stdout and stderr are pipes, for `startProcess`) and `captures`
 * (stdout and stderr are capture files made with it, stdin a pipe, for `runProcess`).
 */
export interface LaunchedProcess {
  readonly child: ChildProcess;
  readonly guard: ProcessGuard;
}

/** A `captures` spare handed over: its stdout and stderr are these files, now the caller's. */
export interface CapturedLaunch extends LaunchedProcess {
  readonly stdout: CaptureFile;
  readonly stderr: CaptureFile;
}

export type SpareKind = 'pipes' | 'captures';

interface Spare extends LaunchedProcess {
  readonly control: Socket;
  readonly captures: readonly [CaptureFile, CaptureFile] | undefined;
  ready: boolean;
  onExit: () => void;
}

const spares: Partial<Record<SpareKind, Spare>> = {};
let scriptDir: string | undefined;
let scripts = 0;

// `read` fails when AgentV closes the pipe (or is gone): the shell then exits.
const LAUNCHER = 'IFS= read -r script <&3 || exit 125; exec 3<&-; . "$script"';

/**
 * Hands the `pipes` spare over to run `command` in `cwd` with exactly `env` (and `PWD`, as
 * the shell that enters a cgroup sets it), or returns undefined when there is none or the
 * command must be spawned directly: its program is not found (the spawn error is then
 * Node's), `cwd` is not a folder, or a value holds a NUL byte.
 */
export function takeSpare(
  command: string | readonly string[],
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): LaunchedProcess | undefined {
  const taken = handOver('pipes', command, cwd, env, '');
  if (taken === undefined) return undefined;
  const { child } = taken;
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as Socket).ref();
  return taken;
}

/**
 * Hands the `captures` spare over like `takeSpare`, its stdout and stderr already the returned
 * capture files: `stdin`, when given, is written to its stdin pipe, which is then closed;
 * without it stdin is `/dev/null`, as for a process spawned with stdin ignored.
 */
export function takeCaptureSpare(
  command: string | readonly string[],
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
  stdin: string | undefined,
): CapturedLaunch | undefined {
  const taken = handOver('captures', command, cwd, env, stdin === undefined ? ' </dev/null' : '');
  if (taken === undefined) return undefined;
  const input = taken.child.stdin!;
  input.on('error', () => {});
  if (stdin === undefined) input.destroy();
  else {
    (input as Socket).ref();
    input.end(stdin);
  }
  const [stdout, stderr] = taken.captures!;
  return { child: taken.child, guard: taken.guard, stdout, stderr };
}

function handOver(
  kind: SpareKind,
  command: string | readonly string[],
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
  redirect: string,
): Spare | undefined {
  const current = spares[kind];
  if (current === undefined || !current.ready || !alive(current.child)) return undefined;
  const argv = launchArgv(command, cwd, env);
  if (argv === undefined || argv[0]!.includes('=') || !isFolder(cwd)) return undefined;
  const words: string[] = [];
  // Inherited keys too, as spawn reads an environment (an object over process.env, say).
  for (const name in env) {
    const value = env[name];
    if (value !== undefined && name !== 'PWD') words.push(`${name}=${value}`);
  }
  words.push(`PWD=${cwd}`, ...argv);
  if (cwd.includes('\0') || words.some((word) => word.includes('\0'))) return undefined;
  const text = `cd -- ${shellQuote(cwd)} || exit 127\nexec /usr/bin/env -i -- ${words.map(shellQuote).join(' ')}${redirect}\n`;
  let script: string;
  try {
    scriptDir ??= makeTempDirSync('launch');
    script = join(scriptDir, `call-${++scripts}.sh`);
    writeFileSync(script, text, { mode: 0o600 });
  } catch {
    return undefined;
  }
  spares[kind] = undefined;
  const { child, control, onExit } = current;
  child.off('exit', onExit);
  child.once('exit', () => rmSync(script, { force: true }));
  control.end(`${script}\n`);
  child.ref();
  return current;
}

/**
 * Starts a spare process of `kind` for the next call when there is none, where calls enter
 * cgroups. It holds nothing open that keeps AgentV running, and is stopped with the run's other
 * processes when AgentV exits or is killed.
 */
export function prepareSpare(kind: SpareKind = 'pipes'): void {
  if (spares[kind] !== undefined || !callsEnterCgroups()) return;
  const guard = guardProcess(DEFAULT_KILL_GRACE_MS);
  if (guard.enter === '') {
    guard.ended();
    return;
  }
  let captures: [CaptureFile, CaptureFile] | undefined;
  let child: ChildProcess;
  try {
    if (kind === 'captures') captures = [openCaptureFile(), openCaptureFile()];
    child = execChild('/bin/sh', ['-c', `${guard.enter}${LAUNCHER}`], {
      cwd: '/',
      env: {},
      detached: true,
      stdio: captures
        ? ['pipe', captures[0].fd, captures[1].fd, 'pipe']
        : ['pipe', 'pipe', 'pipe', 'pipe'],
    });
  } catch {
    for (const capture of captures ?? []) capture.close();
    guard.ended();
    return;
  }
  const control = child.stdio[3] as Socket;
  const made: Spare = {
    child,
    guard,
    control,
    captures,
    ready: false,
    onExit: () => {
      if (spares[kind] === made) spares[kind] = undefined;
      for (const capture of captures ?? []) capture.close();
      guard.ended();
    },
  };
  spares[kind] = made;
  installExitHook();
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr, control]) {
    (stream as Socket | null)?.unref();
  }
  child.on('error', () => {});
  control.on('error', () => {});
  child.once('error', made.onExit);
  child.once('exit', made.onExit);
  // Started when spawn returned a pid (a failed spawn has none and emits 'error'): ready now,
  // not at the 'spawn' event, which a call made in the same tick would not have seen yet.
  if (child.pid !== undefined) {
    guard.started(child.pid);
    made.ready = true;
  }
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

/**
 * Gets a run's first process ready to start while the run still loads its cases: the watchdog
 * is started and, where calls enter cgroups, a `captures` spare for the first `runProcess`, so
 * neither fork (nor the cgroup's wait) falls between the run's first prompt and its process.
 * A run that then starts no process has two idle shells until it exits.
 */
export function prepareProcessStarts(): void {
  if (process.platform === 'win32') return;
  if (callsEnterCgroups()) prepareSpare('captures');
  else guardProcess(DEFAULT_KILL_GRACE_MS).ended();
}
