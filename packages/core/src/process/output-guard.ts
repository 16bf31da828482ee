import { closeSync, constants, fstatSync, ftruncateSync, openSync, statSync } from 'node:fs';
import type { CaptureFile } from './capture-file.js';

/** A file a process writes output to, held to a ceiling like its stdout. */
export interface WatchedFile {
  path: string;
  maxBytes: number;
}

/** Ceilings on what a process may write; passing one stops the process. */
export interface OutputLimit {
  /** Most bytes of stdout. Stdout is then read up to one byte more, never further. */
  stdoutBytes?: number;
  /** Files the process writes output to (a file not written yet is fine). */
  files?: readonly WatchedFile[];
}

/** An output ceiling a process passed. */
export interface OutputLimitExceeded {
  /** `stdout`, or the path of the watched file. */
  source: string;
  /** The ceiling it passed. */
  maxBytes: number;
  /** How many bytes it had written when that was seen: more than `maxBytes`. */
  bytes: number;
  /** True when the process was still running and was stopped for it. */
  stopped: boolean;
}

/** The limits of one process's output (`RunProcessOptions`' fields of the same names). */
export interface OutputLimits {
  maxStdoutBytes?: number;
  keepStdout?: 'head' | 'tail';
  maxStderrBytes?: number;
  outputLimit?: OutputLimit;
}

/** Keeps one process's output within its limits, on disk too. */
export interface OutputGuard {
  /**
   * Checks the sizes now: trims captured bytes that will never be read, and
   * records (and, while `running`, stops the process for) the first ceiling passed.
   */
  check(running: boolean): void;
  /** The ceiling passed, once one was. */
  readonly exceeded: OutputLimitExceeded | undefined;
}

/** Output kept on disk before it is trimmed to its tail: at least this, or twice the tail. */
const MIN_TAIL_DISK_BYTES = 1024 * 1024;

/**
 * The guard of a process's output captured in `stdout` and `stderr`, or
 * undefined when nothing limits it. `stop` stops the process; it is called
 * once, when a ceiling is first passed while the process runs. Stdout
 * beyond what will be read (`maxStdoutBytes`, or one byte past
 * `outputLimit.stdoutBytes`) is cut from its capture; stderr (and stdout with
 * `keepStdout: 'tail'`) is cut to its last `maxStderrBytes`
 * (`maxStdoutBytes`) once the capture holds more than twice that (1 MiB at
 * least). A watched file past its ceiling is emptied (when it is a regular
 * file and not a symbolic link) while the process runs, as nothing will read it.
 */
export function createOutputGuard(
  stdout: CaptureFile,
  stderr: CaptureFile,
  limits: OutputLimits,
  stop: () => void,
): OutputGuard | undefined {
  const { maxStderrBytes, outputLimit } = limits;
  const stdoutLimit = outputLimit?.stdoutBytes;
  const stdoutTail = limits.keepStdout === 'tail' ? limits.maxStdoutBytes : undefined;
  const keepHead = Math.min(
    stdoutTail === undefined
      ? (limits.maxStdoutBytes ?? Number.POSITIVE_INFINITY)
      : Number.POSITIVE_INFINITY,
    stdoutLimit === undefined ? Number.POSITIVE_INFINITY : stdoutLimit + 1,
  );
  const files = outputLimit?.files ?? [];
  const stderrTrim = tailTrimmer(stderr, maxStderrBytes);
  const stdoutTrim = tailTrimmer(stdout, stdoutTail);
  if (
    keepHead === Number.POSITIVE_INFINITY &&
    stderrTrim === undefined &&
    stdoutTrim === undefined &&
    files.length === 0
  )
    return undefined;
  let exceeded: OutputLimitExceeded | undefined;

  const pass = (source: string, maxBytes: number, bytes: number, running: boolean) => {
    if (exceeded !== undefined) return;
    exceeded = { source, maxBytes, bytes, stopped: running };
    if (running) stop();
  };

  const check = (running: boolean) => {
    if (keepHead !== Number.POSITIVE_INFINITY) {
      const size = stdout.size();
      if (stdoutLimit !== undefined && size > stdoutLimit) {
        pass('stdout', stdoutLimit, size, running);
      }
      if (size > keepHead) stdout.trim({ maxBytes: keepHead, keep: 'head' });
    }
    stdoutTrim?.();
    stderrTrim?.();
    for (const file of files) {
      const size = statSync(file.path, { throwIfNoEntry: false })?.size ?? 0;
      if (size <= file.maxBytes) continue;
      pass(file.path, file.maxBytes, size, running);
      if (running) emptyRegularFile(file.path);
    }
  };

  return {
    check,
    get exceeded() {
      return exceeded;
    },
  };
}

/**
 * Cuts `capture` to its last `maxBytes` once it holds more than twice that (1
 * MiB at least) since the last cut; undefined when nothing limits it.
 */
function tailTrimmer(capture: CaptureFile, maxBytes: number | undefined): (() => void) | undefined {
  if (maxBytes === undefined) return undefined;
  const diskBytes = Math.max(2 * maxBytes, MIN_TAIL_DISK_BYTES);
  let trimmedAt = 0;
  return () => {
    const size = capture.size();
    if (size - trimmedAt > diskBytes) {
      capture.trim({ maxBytes, keep: 'tail' });
      trimmedAt = size;
    }
  };
}

/** Truncates `path` to nothing when it is a regular file reached without a symbolic link. */
function emptyRegularFile(path: string): void {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO to write would otherwise wait for a reader.
    fd = openSync(path, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return;
  }
  try {
    if (fstatSync(fd).isFile()) ftruncateSync(fd, 0);
  } finally {
    closeSync(fd);
  }
}
