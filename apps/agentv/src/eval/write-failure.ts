import path from 'node:path';
import { AgentvError } from '@agentv/core';
import { displayPath } from '@agentv/core/internal';

/** A file a run could not write, which stopped it. */
export interface WriteFailure {
  /** What was being written: `results`, `trace dumps`, `prompt dumps` or `workspace changes`. */
  kind: 'results' | 'trace dumps' | 'prompt dumps' | 'workspace changes' | 'transcripts';
  /** Absolute path of the result file, or of the dump folder. */
  path: string;
  error: unknown;
}

// The errors a full or failing disk gives, in the words of strerror(3).
const WRITE_ERRORS: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  EIO: 'input/output error',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'is a folder',
};

/** A file system error as one short phrase with its code: `no space left on device (ENOSPC)`. */
export function describeWriteError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') {
    const words = WRITE_ERRORS[code];
    if (words !== undefined) return `${words} (${code})`;
    // Node's own text reads `CODE: description, syscall 'path'`.
    const message = error instanceof Error ? error.message : '';
    const match = /^[A-Z]+: ([^,]+)/.exec(message);
    return match ? `${match[1]} (${code})` : code;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Where a stopped run stands, for its error. */
export interface StoppedRun {
  cwd: string;
  /** Absolute path of the result file. */
  resultPath: string;
  /** Cases of the whole run that finished (this part and any earlier part of a resumed run). */
  finished: number;
  /** Cases of the whole run. */
  total: number;
  /** Results the result file holds. */
  saved: number;
  /**
   * What to do once space is free, given how many cases are not in the result
   * file: `run the same command with --resume out.jsonl to run the 3 cases not saved`.
   */
  rerun(notSaved: number): string;
}

/**
 * The error a run that stopped on a failed write ends with (exit code 2): the
 * file and the cause, how far the run got, what the result file holds, and
 * how to run the rest.
 */
export function writeFailureError(failure: WriteFailure, run: StoppedRun): AgentvError {
  const shown = displayPath(run.cwd, failure.path);
  const resultFile = displayPath(run.cwd, run.resultPath);
  const what = failure.kind === 'results' ? shown : `${failure.kind} to ${shown}${path.sep}`;
  const where = failure.kind === 'results' ? 'it' : resultFile;
  const saved = `${run.saved} ${run.saved === 1 ? 'result is' : 'results are'} saved in ${where}`;
  const notSaved = run.finished - run.saved;
  const lost = notSaved > 0 ? `; ${notSaved} more finished but could not be saved` : '';
  const free =
    failure.kind === 'results'
      ? 'free some space on that disk'
      : 'free some space on that disk (or choose another folder)';
  return new AgentvError(
    `could not write ${what}: ${describeWriteError(failure.error)}; the run stopped after ${run.finished} of ${run.total} cases; ${saved}${lost}`,
    {
      hint: `${free}, then ${run.rerun(run.total - run.saved)}`,
      cause: failure.error,
    },
  );
}
