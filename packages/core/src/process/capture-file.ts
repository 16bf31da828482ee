import { randomUUID } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
  unlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A temp file that receives a child's stdout or stderr. It is unlinked as soon
 * as it is opened, so nothing is left on disk even if AgentV is killed; the
 * open descriptor is all that refers to it.
 *
 * Why a file and not a pipe: Node gives children a non-blocking socket for
 * `stdio: 'pipe'`, and a program that writes a lot and then calls `exit()`
 * (every Node CLI that ends with `process.exit`) loses whatever did not fit in
 * the socket buffer. Writes to a file complete before `write()` returns, so
 * the whole output is there when the process ends. The loss happens in the
 * child, before the bytes reach the pipe, so no reader-side care (waiting for
 * the pipe's `close` instead of `exit`) can recover it: a Node child writing
 * 4 MiB and calling `process.exit()` delivered 214 or 428 KiB through a pipe in
 * 10 of 10 runs even with the reader waiting for `close`.
 */
export interface CaptureFile {
  /** The descriptor to hand to the child as its stdout or stderr. */
  readonly fd: number;
  /**
   * What was written so far, decoded as UTF-8: all of it, or at most `limit`
   * bytes from its start (`keep: 'head'`) or its end (`keep: 'tail'`).
   */
  read(limit?: CaptureLimit): string;
  /**
   * The file's size: how far the child has written (trimmed bytes included). Once `seal` was
   * called, the size measured then (until a `trim`), without asking the file system again.
   */
  size(): number;
  /**
   * Call when nothing can write to the file any more (the child and what it started are
   * gone): its size is measured once more and reused by `size` and `read`.
   */
  seal(): void;
  /**
   * Frees the disk space of what `read(limit)` will never return, while the
   * child keeps writing: `head` cuts the file after `limit.maxBytes`; `tail`
   * keeps the last `limit.maxBytes` in memory and empties the file. The
   * child's next writes land past the end, leaving a hole that takes no space,
   * so an endless writer uses at most what it writes between two trims. A
   * `tail` trim reads what the child writes while it runs, and may lose only a write
   * made in the instant between its last look at the size and the truncation.
   */
  trim(limit: CaptureLimit): void;
  /**
   * Closes the descriptor (an error closing it is ignored: nothing reads it afterwards). Its
   * space is freed once the child closed it too.
   */
  close(): void;
}

/** How much of a capture to read. */
export interface CaptureLimit {
  maxBytes: number;
  keep: 'head' | 'tail';
}

// Linux's O_TMPFILE (not in fs.constants): a file that never has a name, made in one call
// instead of create + unlink. Not every file system supports it; those fall back to the latter.
const O_TMPFILE = 0o20000000 | (constants.O_DIRECTORY ?? 0);
let tmpfileWorks = process.platform === 'linux';
const UNSUPPORTED = new Set(['EOPNOTSUPP', 'ENOTSUP', 'EISDIR', 'EINVAL']);

/** Opens a new, already unlinked capture file in `dir` (default: the system temp directory). */
export function openCaptureFile(dir: string = captureFolder()): CaptureFile {
  return new Capture(openAnonymous(dir) ?? openNamedThenUnlink(dir));
}

const probe = Buffer.allocUnsafe(16 * 1024);

// A class, not closures over the descriptor: one object per capture, where a runner holds
// two for as long as its process runs (what is alive then outlives the young generation).
class Capture implements CaptureFile {
  // After a tail trim: the bytes kept from before it, and where the file's own bytes start.
  private kept: Buffer | undefined;
  private keptUpTo = 0;
  // Set by seal(): the final size, so the last checks and the read cost no more system calls.
  private sealedSize: number | undefined;

  constructor(readonly fd: number) {}

  size(): number {
    return this.sealedSize ?? fstatSync(this.fd).size;
  }

  read(limit?: CaptureLimit): string {
    if (this.kept === undefined) return readCapture(this.fd, this.size(), limit);
    return readTailAfterTrim(
      this.fd,
      this.size(),
      this.kept,
      this.keptUpTo,
      limit?.maxBytes ?? Number.POSITIVE_INFINITY,
    );
  }

  seal(): void {
    // Most captures are small: one read of their start tells their size (nothing writes any
    // more), where fstat allocates a Stats object and four Dates per capture.
    const count = readSync(this.fd, probe, 0, probe.length, 0);
    this.sealedSize = count < probe.length ? count : fstatSync(this.fd).size;
  }

  trim(limit: CaptureLimit): void {
    const size = fstatSync(this.fd).size;
    this.sealedSize = undefined;
    if (limit.keep === 'head') {
      if (size > limit.maxBytes) ftruncateSync(this.fd, limit.maxBytes);
      return;
    }
    if (size - this.keptUpTo <= limit.maxBytes) return;
    let end = size;
    let tail = readRange(this.fd, Math.max(this.keptUpTo, end - limit.maxBytes), end);
    // What the child writes while the tail is read (a megabyte can take milliseconds on a busy
    // machine) would be cut with it: read that too, so only a write in the instant between the
    // last size and the truncation can be lost (a command's last line was, under load).
    for (let round = 0; round < 8; round++) {
      const now = fstatSync(this.fd).size;
      if (now === end) break;
      const more = readRange(this.fd, Math.max(end, now - limit.maxBytes), now);
      tail = lastBytes(Buffer.concat([tail, more]), limit.maxBytes);
      end = now;
    }
    ftruncateSync(this.fd, 0);
    this.kept = tail;
    this.keptUpTo = end;
  }

  close(): void {
    // Synchronous: a close on the thread pool saves the main thread the journal's wait for an
    // unlinked file, but costs two thread wake-ups per process (CONTRIBUTING, "What a case costs").
    try {
      closeSync(this.fd);
    } catch {
      // EBADF or EIO: nothing uses the descriptor any more.
    }
  }
}

function openAnonymous(dir: string): number | undefined {
  if (!tmpfileWorks) return undefined;
  try {
    return openSync(dir, O_TMPFILE | constants.O_RDWR, 0o600);
  } catch (error) {
    // The file system or kernel cannot; anything else (EMFILE, ENOENT, ...) is reported as is.
    if (!UNSUPPORTED.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
    tmpfileWorks = false;
    return undefined;
  }
}

function openNamedThenUnlink(dir: string): number {
  const path = join(dir, `agentv-capture-${process.pid}-${randomUUID()}`);
  const fd = openSync(path, 'wx+', 0o600);
  try {
    unlinkSync(path);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

// Reads at explicit positions: the child shares this descriptor's file offset,
// which sits at the end of what it wrote.
function readCapture(fd: number, size: number, limit: CaptureLimit | undefined): string {
  if (size === 0) return '';
  const length = limit === undefined ? size : Math.min(size, limit.maxBytes);
  const start = limit?.keep === 'tail' ? size - length : 0;
  return decodeTail(readRange(fd, start, start + length), start > 0);
}

/** The last `maxBytes` of a capture trimmed as `tail`: `kept`, then what the file got since. */
function readTailAfterTrim(
  fd: number,
  size: number,
  kept: Buffer,
  keptUpTo: number,
  maxBytes: number,
): string {
  let since = readRange(fd, Math.max(keptUpTo, size - maxBytes), size);
  // A write racing the trim leaves a hole before the new bytes; it reads as NULs.
  let zeros = 0;
  while (zeros < since.length && since[zeros] === 0) zeros++;
  if (zeros > 0) since = since.subarray(zeros);
  const fromKept = Math.max(0, Math.min(kept.length, maxBytes - since.length));
  const joined = Buffer.concat([kept.subarray(kept.length - fromKept), since]);
  return decodeTail(joined, true);
}

function lastBytes(buffer: Buffer, maxBytes: number): Buffer {
  return buffer.length <= maxBytes ? buffer : buffer.subarray(buffer.length - maxBytes);
}

function readRange(fd: number, start: number, end: number): Buffer {
  const length = Math.max(0, end - start);
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const count = readSync(fd, buffer, filled, length - filled, start + filled);
    if (count === 0) break;
    filled += count;
  }
  return filled === length ? buffer : buffer.subarray(0, filled);
}

/** `bytes` as UTF-8; a cut start (`cut`) may fall inside a character: its continuation bytes are skipped. */
function decodeTail(bytes: Buffer, cut: boolean): string {
  let from = 0;
  if (cut) while (from < bytes.length && from < 3 && (bytes[from]! & 0xc0) === 0x80) from++;
  return bytes.toString('utf8', from);
}

let tmpdirVars: [string | undefined, string | undefined, string | undefined] | undefined;
let tmpdirValue = '';

/**
 * Where capture files are made: `os.tmpdir()`, looked up again only when TMPDIR, TMP or TEMP
 * changed (each lookup reads them through Node's set-uid-safe getenv, a dozen system calls per
 * spawn otherwise).
 */
export function captureFolder(): string {
  const { TMPDIR, TMP, TEMP } = process.env;
  const vars = tmpdirVars;
  if (vars === undefined || vars[0] !== TMPDIR || vars[1] !== TMP || vars[2] !== TEMP) {
    tmpdirVars = [TMPDIR, TMP, TEMP];
    tmpdirValue = tmpdir();
  }
  return tmpdirValue;
}
