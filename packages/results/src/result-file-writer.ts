import { writeSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import type { EvaluationResult } from '@agentv/core';

/** Text of pending entries that is written at once, without waiting for the end of the turn. */
const FLUSH_CHARS = 262_144;

/** Writes results to a file as they arrive. */
export interface ResultWriter {
  readonly filePath: string;
  /** Writes one result; resolves once it has been handed to the operating system. */
  write(result: EvaluationResult): Promise<void>;
  /** Waits for pending writes, then closes the file. Writing after close rejects. */
  close(): Promise<void>;
}

/**
 * Creates (or truncates) `filePath`, creating its parent directories, and
 * returns a writer that appends `render(result)` as soon as `write` is called.
 * Entries appear whole and in call order; a run killed midway leaves a file
 * holding every result written so far.
 */
export async function createResultFileWriter(
  filePath: string,
  render: (result: EvaluationResult) => string,
  options: { append?: boolean } = {},
): Promise<ResultWriter> {
  await mkdir(path.dirname(filePath), { recursive: true });
  // `append` keeps what the file holds (resuming a run); otherwise it starts empty.
  const handle = await open(filePath, options.append === true ? 'a' : 'w');
  let closing: Promise<void> | undefined;
  // Entries of writes made in the same turn of the event loop (workers finishing together, a
  // batch graded case after case) go out in one write call, at the end of the turn or once
  // they fill FLUSH_CHARS; each `write` resolves once its entry is handed to the OS.
  let pending: string[] = [];
  let pendingChars = 0;
  let flushing: Promise<void> | undefined;
  let settle: { resolve(): void; reject(error: unknown): void } | undefined;
  const flush = () => {
    const batch = settle;
    settle = undefined;
    if (batch === undefined) return; // written already, when the entries filled FLUSH_CHARS
    try {
      writePending();
      batch.resolve();
    } catch (error) {
      batch.reject(error);
    }
  };
  const writePending = () => {
    const bytes = Buffer.from(pending.length === 1 ? pending[0]! : pending.join(''), 'utf8');
    pending = [];
    pendingChars = 0;
    flushing = undefined;
    // A synchronous write hands the entries to the OS at once, so entries never interleave
    // and a killed run keeps every one written; for small lines it is also far cheaper than
    // a thread-pool round trip.
    let offset = 0;
    while (offset < bytes.length) {
      offset += writeSync(handle.fd, bytes, offset, bytes.length - offset);
    }
  };

  return {
    filePath,
    async write(result) {
      if (closing) throw new Error(`cannot write result "${result.evalId}": ${filePath} is closed`);
      const entry = render(result);
      pending.push(entry);
      pendingChars += entry.length;
      if (flushing === undefined) {
        flushing = new Promise<void>((resolve, reject) => {
          settle = { resolve, reject };
        });
        setImmediate(flush);
      }
      const written = flushing;
      if (pendingChars >= FLUSH_CHARS) flush();
      return written;
    },
    close() {
      closing ??= (flushing ?? Promise.resolve()).then(
        () => handle.close(),
        () => handle.close(),
      );
      return closing;
    },
  };
}
