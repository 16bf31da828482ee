import type { ChildProcess } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { execChild } from './exec-child.js';
import { DEFAULT_KILL_GRACE_MS } from './kill-grace.js';
import { createProcessGroupTerminator } from './process-group.js';
import { guardProcess } from './process-guard.js';
import { prepareSpare, takeSpare } from './spare-launcher.js';
import { spawnArgv } from './spawn-argv.js';

/** How to start one long-lived process. */
export interface StartProcessOptions {
  /** A shell command line, run as `/bin/sh -c command`, or an argv list run without a shell. */
  command: string | readonly string[];
  /** Absolute working directory. */
  cwd: string;
  /** The process's whole environment, used as given. Default: `process.env` at start. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Time between SIGTERM and SIGKILL, and the wait for an exit after EOF. Default `DEFAULT_KILL_GRACE_MS`. */
  killGraceMs?: number;
  /**
   * True when more processes like this one follow (one per case): where processes start in
   * cgroups, a shell for the next one then enters its cgroup while this one runs (see
   * `prepareSpare`), and this one starts in such a shell when one is ready.
   */
  anotherFollows?: boolean;
}

/** How a long-lived process ended. */
export interface ProcessExit {
  /** Undefined when the process was ended by a signal. */
  exitCode?: number;
  /** The signal that ended the process, e.g. `SIGKILL`. */
  signalName?: string;
}

/** A running process with open stdin, stdout and stderr pipes (stdout and stderr as UTF-8). */
export interface LongLivedProcess {
  readonly pid: number;
  readonly stdin: NodeJS.WritableStream;
  readonly stdout: NodeJS.ReadableStream;
  readonly stderr: NodeJS.ReadableStream;
  /** True once the process has exited. */
  readonly exited: boolean;
  /**
   * Resolves when the process has exited and no process of its group is left
   * (leftovers are stopped with SIGTERM, then SIGKILL). Never rejects. What the process
   * wrote last can still be unread then: read stdout and stderr to their 'end'.
   */
  readonly done: Promise<ProcessExit>;
  /** Stops the group now: SIGTERM, SIGKILL after the grace period. Resolves like `done`. */
  kill(): Promise<ProcessExit>;
  /**
   * Ends the process politely: EOF on stdin, then (when it has not exited
   * within the grace period) `kill()`. Resolves like `done`.
   */
  stop(): Promise<ProcessExit>;
}

/**
 * Starts a process that keeps running and talks over its pipes, under the
 * conventions of `runProcess`: its own process group (signalled as a whole)
 * and cgroup where available, the environment exactly as given, killed with
 * SIGKILL if AgentV exits while it runs and by the watchdog if AgentV is
 * killed. Rejects with the spawn error (an `ErrnoException`) when it could
 * not start.
 */
export async function startProcess(options: StartProcessOptions): Promise<LongLivedProcess> {
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const env = options.env ?? process.env;
  const launched = options.anotherFollows
    ? takeSpare(options.command, options.cwd, env)
    : undefined;
  const guard = launched?.guard ?? guardProcess(graceMs);
  let child: ChildProcess;
  if (launched !== undefined) {
    child = launched.child;
  } else {
    try {
      child = spawnChild(options, env, guard.enter);
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
      });
    } catch (error) {
      guard.ended();
      throw error;
    }
  }
  // After this one's start: its fork must not delay this one.
  if (options.anotherFollows) setImmediate(prepareSpare);
  // Stays attached: a later 'error' (a failed kill) without a listener would be thrown.
  child.on('error', () => {});
  const pid = child.pid!;
  if (launched === undefined) guard.started(pid);
  const group = createProcessGroupTerminator(pid, graceMs, guard.cgroup);
  const stdin = child.stdin!;
  // A process that has exited, or closed its stdin, fails the next write with EPIPE: `done`
  // reports its end, so the write's error is not thrown at AgentV.
  stdin.on('error', () => {});
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');

  let exited = false;
  const done = new Promise<ProcessExit>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = true;
      stdin.destroy();
      void group.settle().then(() => {
        guard.ended();
        resolve({
          ...(code === null ? {} : { exitCode: code }),
          ...(signal === null ? {} : { signalName: signal }),
        });
      });
    });
  });

  const kill = () => {
    if (!exited) group.terminate();
    return done;
  };
  const stop = async () => {
    if (!exited) {
      stdin.end();
      const timer = delay(graceMs, undefined, { ref: false }).then(() => 'late' as const);
      if ((await Promise.race([done, timer])) === 'late') group.terminate();
    }
    return done;
  };

  return {
    pid,
    stdin,
    stdout: child.stdout!,
    stderr: child.stderr!,
    get exited() {
      return exited;
    },
    done,
    kill,
    stop,
  };
}

function spawnChild(
  options: StartProcessOptions,
  env: Readonly<Record<string, string | undefined>>,
  enter: string,
): ChildProcess {
  const spawnOptions = {
    cwd: options.cwd,
    env,
    // A new process group (and session), so the whole tree can be signalled at once.
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'] as ['pipe', 'pipe', 'pipe'],
    windowsHide: true,
  };
  const [file, ...args] = spawnArgv(options.command, enter, options.cwd, env);
  // The pipes are the caller's to read.
  return execChild(file, args, spawnOptions);
}
