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
  /**
   * The process itself has ended (processes it left may still run until its group has
   * settled): a ceiling passed from now on is recorded as not `stopped`, and nothing is
   * terminated for it, as the group is being ended anyway.
   */
  leaderEnded(): void;
  /** The ceiling passed, once one was. */
  readonly exceeded: OutputLimitExceeded | undefined;
}

/** Output kept on disk before it is trimmed to its tail: at least this, or twice the tail. */
const MIN_TAIL_DISK_BYTES = 1024 * 1024;

/**
 * The guard of a process's output captured in `stdout` and `stderr`, or
 * undefined when nothing limits it. `stop.terminate()` stops the process; it is
 * called once, when a ceiling is first passed while the process runs. Stdout
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
  stop: Stoppable | undefined,
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
  if (
    keepHead === Number.POSITIVE_INFINITY &&
    maxStderrBytes === undefined &&
    stdoutTail === undefined &&
    files.length === 0
  )
    return undefined;
  return new Guard(
    stdout,
    stderr,
    stop,
    keepHead,
    stdoutLimit,
    files,
    tailTrim(stdoutTail),
    tailTrim(maxStderrBytes),
  );
}

/** What the guard stops when a ceiling is passed while the process runs. */
export interface Stoppable {
  terminate(): void;
}

/**
 * A capture cut to its last `maxBytes` once it holds more than `diskBytes` (twice that, 1 MiB
 * at least) since the last cut, at `trimmedAt`.
 */
interface TailTrim {
  maxBytes: number;
  diskBytes: number;
  trimmedAt: number;
}

function tailTrim(maxBytes: number | undefined): TailTrim | undefined {
  if (maxBytes === undefined) return undefined;
  return { maxBytes, diskBytes: Math.max(2 * maxBytes, MIN_TAIL_DISK_BYTES), trimmedAt: 0 };
}

// A class, not closures: it lives as long as its process runs, once per call.
class Guard implements OutputGuard {
  exceeded: OutputLimitExceeded | undefined;
  private ended = false;

  constructor(
    private readonly stdout: CaptureFile,
    private readonly stderr: CaptureFile,
    private readonly stop: Stoppable | undefined,
    private readonly keepHead: number,
    private readonly stdoutLimit: number | undefined,
    private readonly files: readonly WatchedFile[],
    private readonly stdoutTail: TailTrim | undefined,
    private readonly stderrTail: TailTrim | undefined,
  ) {}

  check(running: boolean): void {
    const { stdout, stdoutLimit, keepHead } = this;
    if (keepHead !== Number.POSITIVE_INFINITY) {
      const size = stdout.size();
      if (stdoutLimit !== undefined && size > stdoutLimit) {
        this.pass('stdout', stdoutLimit, size, running);
      }
      if (size > keepHead) stdout.trim({ maxBytes: keepHead, keep: 'head' });
    }
    trimTail(stdout, this.stdoutTail);
    trimTail(this.stderr, this.stderrTail);
    for (const file of this.files) {
      const size = statSync(file.path, { throwIfNoEntry: false })?.size ?? 0;
      if (size <= file.maxBytes) continue;
      this.pass(file.path, file.maxBytes, size, running);
      if (running) emptyRegularFile(file.path);
    }
  }

  leaderEnded(): void {
    this.ended = true;
  }

  private pass(source: string, maxBytes: number, bytes: number, running: boolean): void {
    if (this.exceeded !== undefined) return;
    const stopped = running && !this.ended;
    this.exceeded = { source, maxBytes, bytes, stopped };
    if (stopped) this.stop?.terminate();
  }
}

function trimTail(capture: CaptureFile, tail: TailTrim | undefined): void {
  if (tail === undefined) return;
  const size = capture.size();
  if (size - tail.trimmedAt > tail.diskBytes) {
    capture.trim({ maxBytes: tail.maxBytes, keep: 'tail' });
    tail.trimmedAt = size;
  }
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
