import { ftruncateSync, writeSync } from 'node:fs';
import { type FileHandle, mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import type { EvaluationResult } from '@agentv/core';

/** Text of pending entries that is written at once, without waiting for the end of the turn. */
const FLUSH_CHARS = 262_144;

/** The largest buffer a writer keeps between writes (what FLUSH_CHARS of text may take, and more). */
const SCRATCH_BYTES = 1024 * 1024;

/** Writes results to a file as they arrive. */
export interface ResultWriter {
  readonly filePath: string;
  /** Entries this writer has put in the file, whole. */
  readonly written: number;
  /**
   * Writes one result; resolves once it has been handed to the operating
   * system. Rejects with the file system's error (`code` `ENOSPC`, `EIO`…) when
   * the entry is not in the file; once a write has failed, every later one
   * rejects with that error without trying.
   */
  write(result: EvaluationResult): Promise<void>;
  /** Waits for pending writes, then closes the file. Writing after close rejects. */
  close(): Promise<void>;
}

/**
 * Creates (or truncates) `filePath`, creating its parent directories, and
 * returns a writer that appends `render(result)` as soon as `write` is called.
 * Entries appear whole and in call order; a run killed midway leaves a file
 * holding every result written so far. A write that fails partway (a full
 * disk) is cut back to the last whole entry, so the file never ends in part of
 * one (unless even that cut fails).
 */
export async function createResultFileWriter(
  filePath: string,
  render: (result: EvaluationResult) => string,
  /**
   * `entryEnd`: text written after each entry (`"\n"` for JSON lines), kept apart from what
   * `render` returns: appended to it, it would make a string of two pieces that has to be copied
   * whole again when written, for every result.
   */
  options: { append?: boolean; entryEnd?: string } = {},
): Promise<ResultWriter> {
  const entryEnd = options.entryEnd ?? '';
  const entryEndBytes = Buffer.byteLength(entryEnd, 'utf8');
  // A one-byte end (a newline) is set in place rather than encoded for every entry.
  const entryEndByte = entryEndBytes === 1 ? entryEnd.charCodeAt(0) : -1;
  await mkdir(path.dirname(filePath), { recursive: true });
  // `append` keeps what the file holds (resuming a run); otherwise it starts empty.
  const handle = await open(filePath, options.append === true ? 'a+' : 'w');
  // The file's length up to the end of the last whole entry: where a failed write is cut back to.
  let length = 0;
  // Text appended to a file that does not end with a newline would join its last line.
  let separator = '';
  if (options.append === true) {
    length = (await handle.stat()).size;
    if (length > 0 && !(await endsWithNewline(handle, length))) separator = '\n';
  }
  let written = 0;
  let failure: { error: unknown } | undefined;
  let closing: Promise<void> | undefined;
  // Entries of writes made in the same turn of the event loop (workers finishing together, a
  // batch graded case after case) go out in one write call, at the end of the turn or once
  // they fill FLUSH_CHARS; the batch's promise resolves to how many of its entries were written.
  let pending: string[] = [];
  let pendingChars = 0;
  let flushing: Promise<number> | undefined;
  let settle: ((saved: number) => void) | undefined;
  const flush = () => {
    const resolve = settle;
    settle = undefined;
    if (resolve === undefined) return; // written already, when the entries filled FLUSH_CHARS
    resolve(writePending());
  };
  // The bytes of a write are encoded into one buffer, kept for the next write while it is
  // small: joining the entries into one string and encoding that cost two copies more and a
  // new buffer per write.
  let scratch: Buffer | undefined;
  const writePending = (): number => {
    const entries = pending;
    // A UTF-16 unit is at most 3 UTF-8 bytes.
    const most = (separator.length + pendingChars) * 3;
    pending = [];
    pendingChars = 0;
    flushing = undefined;
    if (failure) return 0;
    let bytes: Buffer;
    if (most > SCRATCH_BYTES) {
      // Large entries (traces) get a buffer of their exact size, used once.
      let exact = Buffer.byteLength(separator, 'utf8') + entries.length * entryEndBytes;
      for (const entry of entries) exact += Buffer.byteLength(entry, 'utf8');
      bytes = Buffer.allocUnsafeSlow(exact);
    } else {
      if (scratch === undefined || scratch.length < most) {
        scratch = Buffer.allocUnsafeSlow(Math.min(SCRATCH_BYTES, Math.max(most, 65_536)));
      }
      bytes = scratch;
    }
    let size = separator === '' ? 0 : bytes.write(separator, 0);
    for (const entry of entries) {
      size += bytes.write(entry, size);
      if (entryEndByte >= 0) bytes[size++] = entryEndByte;
      else if (entryEndBytes > 0) size += bytes.write(entryEnd, size);
    }
    // A synchronous write hands the entries to the OS at once, so entries never interleave
    // and a killed run keeps every one written; for small lines it is also far cheaper than
    // a thread-pool round trip.
    let offset = 0;
    try {
      while (offset < size) {
        offset += writeSync(handle.fd, bytes, offset, size - offset);
      }
    } catch (error) {
      failure = { error };
      return cutBack(entries, offset);
    }
    separator = '';
    length += size;
    written += entries.length;
    return entries.length;
  };
  // Keeps the entries that reached the file whole and truncates the part of the next one.
  const cutBack = (entries: readonly string[], offset: number): number => {
    let kept = 0;
    let keptBytes = Buffer.byteLength(separator, 'utf8');
    if (offset < keptBytes) keptBytes = 0;
    else {
      for (const entry of entries) {
        const size = Buffer.byteLength(entry, 'utf8') + entryEndBytes;
        if (keptBytes + size > offset) break;
        keptBytes += size;
        kept++;
      }
    }
    try {
      ftruncateSync(handle.fd, length + keptBytes);
    } catch {
      // The part stays; `--resume` drops a last line cut short.
    }
    length += keptBytes;
    written += kept;
    return kept;
  };

  return {
    filePath,
    get written() {
      return written;
    },
    // A promise chain, not an async function: a batch writes thousands of results at once.
    write(result) {
      if (failure) return Promise.reject(failure.error);
      if (closing) {
        return Promise.reject(
          new Error(`cannot write result "${result.evalId}": ${filePath} is closed`),
        );
      }
      let entry: string;
      try {
        entry = render(result);
      } catch (error) {
        return Promise.reject(error);
      }
      const index = pending.length;
      pending.push(entry);
      pendingChars += entry.length + entryEnd.length;
      if (flushing === undefined) {
        flushing = new Promise<number>((resolve) => {
          settle = resolve;
        });
        setImmediate(flush);
      }
      const batch = flushing;
      if (pendingChars >= FLUSH_CHARS) flush();
      return batch.then((saved) => {
        if (index >= saved) throw failure!.error;
      });
    },
    close() {
      closing ??= (flushing ?? Promise.resolve()).then(() => handle.close());
      return closing;
    },
  };
}

async function endsWithNewline(handle: FileHandle, size: number): Promise<boolean> {
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  return last[0] === 0x0a;
}
