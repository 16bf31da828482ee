import { randomUUID } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, unlinkSync } from 'node:fs';
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
 * the whole output is there when the process ends.
 */
export interface CaptureFile {
  /** The descriptor to hand to the child as its stdout or stderr. */
  readonly fd: number;
  /**
   * What was written so far, decoded as UTF-8: all of it, or at most `limit`
   * bytes from its start (`keep: 'head'`) or its end (`keep: 'tail'`).
   */
  read(limit?: CaptureLimit): string;
  /** Closes the descriptor; the file's space is freed once the child closes it too. */
  close(): void;
}

/** How much of a capture to read. */
export interface CaptureLimit {
  maxBytes: number;
  keep: 'head' | 'tail';
}

/** Opens a new, already unlinked capture file in the system temp directory. */
export function openCaptureFile(): CaptureFile {
  const path = join(tmpdir(), `agentv-capture-${process.pid}-${randomUUID()}`);
  const fd = openSync(path, 'wx+', 0o600);
  try {
    unlinkSync(path);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return {
    fd,
    read: (limit) => readCapture(fd, limit),
    close: () => closeSync(fd),
  };
}

// Reads at explicit positions: the child shares this descriptor's file offset,
// which sits at the end of what it wrote.
function readCapture(fd: number, limit: CaptureLimit | undefined): string {
  const size = fstatSync(fd).size;
  if (size === 0) return '';
  const length = limit === undefined ? size : Math.min(size, limit.maxBytes);
  const start = limit?.keep === 'tail' ? size - length : 0;
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const count = readSync(fd, buffer, filled, length - filled, start + filled);
    if (count === 0) break;
    filled += count;
  }
  let from = 0;
  // A tail cut may start inside a multi-byte character: skip its continuation bytes.
  if (start > 0) while (from < filled && from < 3 && (buffer[from]! & 0xc0) === 0x80) from++;
  return buffer.toString('utf8', from, filled);
}
