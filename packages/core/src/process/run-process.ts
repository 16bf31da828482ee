import { type CaptureFile, captureFolder, openCaptureFile } from './capture-file.js';
import { type ExecChildOptions, execChild } from './exec-child.js';
import { DEFAULT_KILL_GRACE_MS } from './kill-grace.js';
import { createOutputGuard, type OutputLimit, type OutputLimitExceeded } from './output-guard.js';
import { pollWhileRunning, stopPolling } from './poll-while-running.js';
import { createProcessGroupTerminator } from './process-group.js';
import { guardProcess, type ProcessGuard } from './process-guard.js';
import { type CapturedLaunch, takeCaptureSpare } from './spare-launcher.js';
import { spawnArgv } from './spawn-argv.js';
import { HELPER_FAULT, type HelperChild, spawnHelper } from './spawn-helper.js';

/** How to run one process. */
export interface RunProcessOptions {
  /** A shell command line, run as `/bin/sh -c command`, or an argv list run without a shell. */
  command: string | readonly string[];
  /** Absolute working directory. */
  cwd: string;
  /**
   * The process's whole environment, used as given (nothing is merged into
   * it). Default: `process.env` as it is when the process starts.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** Written to the process's stdin, which is then closed. Default: stdin is closed from the start. */
  stdin?: string;
  /** Stop the process after this many ms; undefined means no limit. */
  timeoutMs?: number;
  /** Stop the process when this fires. */
  signal?: AbortSignal;
  /** Time between SIGTERM and SIGKILL when stopping. Default `DEFAULT_KILL_GRACE_MS`. */
  killGraceMs?: number;
  /**
   * Keep only this many bytes of stdout: its first (the rest takes no disk
   * space), or its last with `keepStdout: 'tail'`. Default: all of it.
   */
  maxStdoutBytes?: number;
  /**
   * Which end of stdout `maxStdoutBytes` keeps: `head` (default), or `tail`
   * (older bytes are dropped from disk as they pile up, like stderr's), for
   * a command whose verdict is at the end of a long output (a test runner).
   */
  keepStdout?: 'head' | 'tail';
  /**
   * Keep only the last this many bytes of stderr (older bytes are dropped from
   * disk as they pile up). Default: all of it.
   */
  maxStderrBytes?: number;
  /**
   * Ceilings on stdout and on files the process writes: once one is passed the
   * process is stopped like on timeout and the outcome has `outputLimitExceeded`.
   */
  outputLimit?: OutputLimit;
}

/** What a finished (or stopped) process did. */
export interface ProcessOutcome {
  stdout: string;
  stderr: string;
  /** Undefined when the process was ended by a signal. */
  exitCode?: number;
  /** The signal that ended the process, e.g. `SIGKILL`. */
  signalName?: string;
  /** True when `timeoutMs` elapsed and the process was stopped. */
  timedOut: boolean;
  /** True when `signal` fired and the process was stopped. */
  aborted: boolean;
  /**
   * Set when the process passed a ceiling of `outputLimit` (stopped if it was
   * still running). `stdout` is then empty when stdout passed it.
   */
  outputLimitExceeded?: OutputLimitExceeded;
  durationMs: number;
}

export { DEFAULT_KILL_GRACE_MS };

/**
 * Runs a process in its own process group and waits for it: stdin closed (after
 * `stdin` was written, if given), stdout and stderr captured as UTF-8 through
 * unlinked temp files (see `CaptureFile`), so output written just before
 * `exit()` is never lost.
 *
 * On timeout or abort the whole group gets SIGTERM, then SIGKILL after the
 * grace period. When the process exits by itself, processes it left running in
 * its group are stopped the same way, so nothing outlives the call. On Linux
 * with a writable cgroup v2 the process runs in a cgroup of its own, which holds
 * processes that left the group with `setsid` too, and they are stopped with it.
 * If AgentV exits first, running processes are killed on the way out; if it is
 * killed, the watchdog stops them (see `guardProcess`). A process that has
 * already exited is never reported as timed out.
 *
 * The process is spawned (or asked of the spawn helper, see `spawnHelper`)
 * before the returned promise first waits. Never
 * rejects for a process that ran; rejects with the error of the failed
 * `spawn` (an `ErrnoException` such as `spawn /bin/sh EMFILE`, or the
 * `TypeError` for an argument the OS cannot take) when it could not start.
 * An already aborted `signal` resolves as aborted without starting anything.
 */
export async function runProcess(options: RunProcessOptions): Promise<ProcessOutcome> {
  const started = performance.now();
  if (options.signal?.aborted) {
    return { stdout: '', stderr: '', timedOut: false, aborted: true, durationMs: 0 };
  }
  const captures: CaptureFile[] = [];
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  let guard: ProcessGuard | undefined;
  try {
    const env = options.env ?? process.env;
    const launched = takeCaptureSpare(options.command, options.cwd, env, options.stdin);
    let stdout: CaptureFile;
    let stderr: CaptureFile;
    let child: RunningChild;
    if (launched !== undefined) {
      ({ stdout, stderr, guard } = launched);
      captures.push(stdout, stderr);
      child = fromSpare(launched);
    } else {
      const dir = captureFolder();
      stdout = openCapture(captures, dir);
      stderr = openCapture(captures, dir);
      guard = guardProcess(graceMs);
      child = start(options, env, stdout.fd, stderr.fd, guard.enter, graceMs);
    }
    const pid = await child.started;
    const group = createProcessGroupTerminator(pid, graceMs, guard.cgroup);
    // A spare's guard was told when the spare started.
    if (launched === undefined) guard.started(pid);

    let timedOut = false;
    let aborted = false;
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            // A process that already exited finished in time; leftovers are settle()'s job.
            if (child.exited || aborted) return;
            timedOut = true;
            group.terminate();
          }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      group.terminate();
    };
    // Aborted while it was being started: stopped at once.
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    const outputGuard = createOutputGuard(stdout, stderr, options, group);
    if (outputGuard !== undefined) pollWhileRunning(outputGuard);

    try {
      const end = await child.ended;
      clearTimeout(timer);
      // The checks go on while the group settles (a leftover may still write), but what they
      // find now was not what stopped the process.
      outputGuard?.leaderEnded();
      await group.settle();
      if (outputGuard !== undefined) stopPolling(outputGuard);
      // Nothing writes to the captures any more: one size each for the last check and the read.
      stdout.seal();
      stderr.seal();
      outputGuard?.check(false);
      const exceeded = outputGuard?.exceeded;
      return {
        stdout:
          exceeded?.source === 'stdout'
            ? ''
            : stdout.read(
                options.keepStdout === 'tail'
                  ? limit(options.maxStdoutBytes, 'tail')
                  : headLimit(options.maxStdoutBytes, options.outputLimit),
              ),
        stderr: stderr.read(limit(options.maxStderrBytes, 'tail')),
        ...(end.code === null ? {} : { exitCode: end.code }),
        ...(end.signal === null ? {} : { signalName: end.signal }),
        timedOut,
        aborted,
        ...(exceeded === undefined ? {} : { outputLimitExceeded: exceeded }),
        durationMs: Math.round(performance.now() - started),
      };
    } finally {
      if (outputGuard !== undefined) stopPolling(outputGuard);
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  } finally {
    guard?.ended();
    for (const capture of captures) capture.close();
  }
}

function openCapture(captures: CaptureFile[], dir: string): CaptureFile {
  const capture = openCaptureFile(dir);
  captures.push(capture);
  return capture;
}

/** A started process, as `runProcess` waits for it. */
interface RunningChild {
  /** Resolves with its pid once it runs; rejects with spawn's error when it could not start. */
  readonly started: Promise<number>;
  /** Resolves with how it ended. */
  readonly ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** True once it has exited. */
  readonly exited: boolean;
}

function start(
  options: RunProcessOptions,
  env: Readonly<Record<string, string | undefined>>,
  stdout: number,
  stderr: number,
  enter: string,
  graceMs: number,
): RunningChild {
  const [file, ...args] = spawnArgv(options.command, enter, options.cwd, env);
  const helper = spawnHelper(graceMs);
  if (helper !== undefined) {
    const request = { file, args, cwd: options.cwd, env, stdout, stderr, stdin: options.stdin };
    return fromHelper(helper.spawn(request), () =>
      startHere(options, file, args, env, stdout, stderr),
    );
  }
  return startHere(options, file, args, env, stdout, stderr);
}

/** Starts the process from this one (see `execChild`). */
function startHere(
  options: RunProcessOptions,
  file: string,
  args: string[],
  env: Readonly<Record<string, string | undefined>>,
  stdout: number,
  stderr: number,
): RunningChild {
  const spawnOptions: ExecChildOptions = {
    cwd: options.cwd,
    env,
    // A new process group (and session), so the whole tree can be signalled at once.
    detached: true,
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', stdout, stderr],
    windowsHide: true,
  };
  const child = execChild(file, args, spawnOptions, options.stdin);
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      child.stdin?.destroy();
      resolve({ code, signal });
    });
  });
  const started = new Promise<number>((resolve, reject) => {
    // Stays attached: an 'error' without a listener would be thrown.
    child.on('error', reject);
    if (child.pid !== undefined) resolve(child.pid);
  });
  return {
    started,
    ended,
    get exited() {
      return child.exitCode !== null || child.signalCode !== null;
    },
  };
}

/** A process started in the spare shell (see `takeCaptureSpare`): it runs already. */
function fromSpare({ child }: CapturedLaunch): RunningChild {
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
    } else child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return {
    started: Promise.resolve(child.pid!),
    ended,
    get exited() {
      return child.exitCode !== null || child.signalCode !== null;
    },
  };
}

/** A process the helper starts; `fallback` starts it here when the fault was the helper's. */
function fromHelper(child: HelperChild, fallback: () => RunningChild): RunningChild {
  let exited = false;
  let here: RunningChild | undefined;
  const ended = child.ended.then((end) => {
    exited = true;
    return end;
  });
  const started = child.started.catch((error: unknown) => {
    if (!(error as { [HELPER_FAULT]?: boolean })[HELPER_FAULT]) throw error;
    here = fallback();
    return here.started;
  });
  return {
    started,
    get ended() {
      return here?.ended ?? ended;
    },
    get exited() {
      return here?.exited ?? exited;
    },
  };
}

function limit(maxBytes: number | undefined, keep: 'head' | 'tail') {
  return maxBytes === undefined ? undefined : { maxBytes, keep };
}

/** How much of stdout to read: `maxStdoutBytes`, and never past one byte over its ceiling. */
function headLimit(maxStdoutBytes: number | undefined, outputLimit: OutputLimit | undefined) {
  const ceiling = outputLimit?.stdoutBytes;
  if (ceiling === undefined) return limit(maxStdoutBytes, 'head');
  return { maxBytes: Math.min(maxStdoutBytes ?? ceiling, ceiling), keep: 'head' as const };
}
