import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Socket } from 'node:net';
import { ProviderError } from '@agentv/core';
import { x } from 'tinyexec';
import { createProcessGroupTerminator, type ProcessGroupTerminator } from './process-group.js';

/** How to run one rendered command. */
export interface RunCommandOptions {
  /** The shell command line, run as `/bin/sh -c command`. */
  command: string;
  /** Absolute working directory. */
  cwd: string;
  /** Added to the process environment. */
  env?: Record<string, string>;
  /** Stop the command after this many ms; undefined means no limit. */
  timeoutMs?: number;
  /** Stop the command when this fires. */
  signal?: AbortSignal;
  /** Time between SIGTERM and SIGKILL when stopping. Default 2000 ms. */
  killGraceMs?: number;
}

/** What a finished (or stopped) command did. */
export interface CommandOutcome {
  stdout: string;
  stderr: string;
  /** Undefined when the command was ended by a signal. */
  exitCode?: number;
  /** The signal that ended the command, e.g. `SIGKILL`. */
  signalName?: string;
  /** True when `timeoutMs` elapsed and the command was stopped. */
  timedOut: boolean;
  /** True when `signal` fired and the command was stopped. */
  aborted: boolean;
  durationMs: number;
}

export const DEFAULT_KILL_GRACE_MS = 2000;

// After the leader and its process group are gone, pipes still held open by a
// process that left the group (setsid) must not keep the run waiting.
const ORPHAN_PIPE_WAIT_MS = 200;

/**
 * Runs `command` through `/bin/sh -c` in its own process group, stdin closed,
 * stdout and stderr captured as UTF-8.
 *
 * On timeout or abort the whole group gets SIGTERM, then SIGKILL after the grace
 * period. When the command exits by itself, processes it left running in its
 * group are stopped the same way, so nothing outlives the call. Never throws for
 * a command that ran; throws a non-retryable `ProviderError` when it could not
 * be started.
 */
export async function runCommand(options: RunCommandOptions): Promise<CommandOutcome> {
  const started = performance.now();
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  if (options.signal?.aborted) {
    return { stdout: '', stderr: '', timedOut: false, aborted: true, durationMs: 0 };
  }

  const execution = start(options);
  const child = execution.process;
  // Decoding per stream keeps multi-byte characters split across chunks intact.
  child?.stdout?.setEncoding('utf8');
  child?.stderr?.setEncoding('utf8');

  let timedOut = false;
  let aborted = false;
  let group: ProcessGroupTerminator | undefined;
  let settled: Promise<void> = Promise.resolve();
  if (child?.pid !== undefined) {
    const terminator = createProcessGroupTerminator(child.pid, graceMs);
    group = terminator;
    child.once('exit', () => {
      settled = terminator.settle().then(() => releaseOrphanedPipes(child));
    });
  }

  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          // A leader that already exited finished in time; leftovers are settle()'s job.
          if (child?.exitCode !== null || child.signalCode !== null) return;
          timedOut = true;
          group?.terminate();
        }, options.timeoutMs);
  const onAbort = () => {
    aborted = true;
    group?.terminate();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });

  try {
    const output = await execution;
    await settled;
    return {
      stdout: output.stdout,
      stderr: output.stderr,
      ...(output.exitCode === undefined ? {} : { exitCode: output.exitCode }),
      ...(execution.signalCode === null ? {} : { signalName: execution.signalCode }),
      timedOut,
      aborted,
      durationMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    throw startError(error, options.cwd);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

function start(options: RunCommandOptions): ReturnType<typeof x> {
  try {
    return x('/bin/sh', ['-c', options.command], {
      nodePath: false,
      throwOnError: false,
      nodeOptions: {
        cwd: options.cwd,
        env: { ...process.env, ...options.env },
        // A new process group (and session), so the whole tree can be signalled at once.
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    });
  } catch (error) {
    // spawn() throws synchronously for arguments it rejects, e.g. NUL bytes in env values.
    throw startError(error, options.cwd);
  }
}

function startError(error: unknown, cwd: string): ProviderError {
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
  const reason = error instanceof Error ? error.message : String(error);
  return new ProviderError(`could not start the command in ${cwd}: ${reason}`, {
    retryable: false,
    cause: error,
    hint: 'check that /bin/sh exists and cwd is a readable directory',
  });
}

function releaseOrphanedPipes(child: ChildProcess): void {
  for (const stream of [child.stdout, child.stderr]) {
    if (stream instanceof Socket) destroyWhenIdle(stream, -1);
  }
}

// Destroys the stream once it has stayed open without delivering data for a
// whole wait, so output that is still being read is never cut short.
function destroyWhenIdle(stream: Socket, lastBytesRead: number): void {
  if (stream.readableEnded || stream.destroyed) return;
  if (stream.bytesRead === lastBytesRead) {
    stream.destroy();
    return;
  }
  setTimeout(() => destroyWhenIdle(stream, stream.bytesRead), ORPHAN_PIPE_WAIT_MS).unref();
}
