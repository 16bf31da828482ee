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
  /** Everything written so far, decoded as UTF-8. */
  read(): string;
  /** Closes the descriptor; the file's space is freed once the child closes it too. */
  close(): void;
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
    read: () => readWhole(fd),
    close: () => closeSync(fd),
  };
}

// Reads at explicit positions: the child shares this descriptor's file offset,
// which sits at the end of what it wrote.
function readWhole(fd: number): string {
  const size = fstatSync(fd).size;
  const buffer = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const count = readSync(fd, buffer, filled, size - filled, filled);
    if (count === 0) break;
    filled += count;
  }
  return buffer.toString('utf8', 0, filled);
}
