import { existsSync } from 'node:fs';
import { ProviderError } from '@agentv/core';
import { x } from 'tinyexec';
import { type CaptureFile, openCaptureFile } from './capture-file.js';
import { createProcessGroupTerminator, type ProcessGroupTerminator } from './process-group.js';

/** How to run one rendered command. */
export interface RunCommandOptions {
  /** The shell command line, run as `/bin/sh -c command`. */
  command: string;
  /** Absolute working directory. */
  cwd: string;
  /** Added to the process environment. */
  env?: Record<string, string>;
  /**
   * A plain copy of the process environment to start from (see
   * `snapshotEnvironment`); default: the live `process.env`.
   */
  baseEnv?: NodeJS.ProcessEnv;
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

/**
 * Runs `command` through `/bin/sh -c` in its own process group, stdin closed,
 * stdout and stderr captured in full as UTF-8 (through temp files, see
 * `CaptureFile`, so output written just before `exit()` is never lost).
 *
 * On timeout or abort the whole group gets SIGTERM, then SIGKILL after the grace
 * period. When the command exits by itself, processes it left running in its
 * group are stopped the same way, so nothing outlives the call. Never throws for
 * a command that ran; throws a `ProviderError` when it could not be started,
 * retryable unless the cause is permanent (missing cwd or shell, invalid
 * arguments or environment, E2BIG).
 */
export async function runCommand(options: RunCommandOptions): Promise<CommandOutcome> {
  const started = performance.now();
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  if (options.signal?.aborted) {
    return { stdout: '', stderr: '', timedOut: false, aborted: true, durationMs: 0 };
  }

  const captures: CaptureFile[] = [];
  try {
    const stdout = openCapture(captures, options.cwd);
    const stderr = openCapture(captures, options.cwd);
    const execution = start(options, stdout.fd, stderr.fd);
    const child = execution.process;

    let timedOut = false;
    let aborted = false;
    let group: ProcessGroupTerminator | undefined;
    let settled: Promise<void> = Promise.resolve();
    const pid = child?.pid;
    if (pid !== undefined) {
      trackGroup(pid);
      const terminator = createProcessGroupTerminator(pid, graceMs);
      group = terminator;
      child?.once('exit', () => {
        settled = terminator.settle();
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
        stdout: stdout.read(),
        stderr: stderr.read(),
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
      if (pid !== undefined) liveGroups.delete(pid);
    }
  } finally {
    for (const capture of captures) capture.close();
  }
}

/** Process groups of commands still running, so none outlives AgentV. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function trackGroup(pid: number): void {
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // `process.exit` (a second Ctrl-C, a fatal error) skips the orderly SIGTERM/SIGKILL
  // of running commands; an exit handler may only do synchronous work, and
  // process.kill is synchronous, so their groups are killed here instead.
  process.once('exit', () => {
    for (const group of liveGroups) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
}

function openCapture(captures: CaptureFile[], cwd: string): CaptureFile {
  try {
    const capture = openCaptureFile();
    captures.push(capture);
    return capture;
  } catch (error) {
    throw startError(error, cwd);
  }
}

/**
 * A plain-object copy of `process.env`. Reading the real `process.env` goes to
 * the C environment for every variable, and tinyexec copies all of it for every
 * command; a provider takes one snapshot and starts every command from it.
 */
export function snapshotEnvironment(): NodeJS.ProcessEnv {
  return { ...process.env };
}

function start(options: RunCommandOptions, stdout: number, stderr: number): ReturnType<typeof x> {
  const liveEnv = process.env;
  try {
    // tinyexec merges `env` over `process.env`; pointing that at the snapshot for
    // this synchronous call makes the merge a plain object copy. Restored below,
    // before anything else can run.
    if (options.baseEnv) process.env = options.baseEnv;
    return x('/bin/sh', ['-c', options.command], {
      nodePath: false,
      throwOnError: false,
      nodeOptions: {
        cwd: options.cwd,
        // tinyexec layers these over process.env itself; copying it here too would double the cost.
        env: options.env ?? {},
        // A new process group (and session), so the whole tree can be signalled at once.
        detached: true,
        stdio: ['ignore', stdout, stderr],
      },
    });
  } catch (error) {
    // spawn() throws synchronously for arguments it rejects, e.g. NUL bytes in env values.
    throw startError(error, options.cwd);
  } finally {
    process.env = liveEnv;
  }
}

// Spawn errors no retry can fix: the command line or environment is unusable,
// or /bin/sh or cwd is missing or not accessible. Anything else (EAGAIN,
// EMFILE, ENOMEM, ...) is the system being busy, and another attempt may work.
const PERMANENT_SPAWN_ERRORS = new Set(['E2BIG', 'EACCES', 'ENOENT', 'ENOTDIR', 'EPERM']);

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
