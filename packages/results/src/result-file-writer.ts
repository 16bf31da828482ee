import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import type { EvaluationResult } from '@agentv/core';

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
 * Writes are serialised, so concurrent calls never interleave and entries
 * appear in call order; a run killed midway leaves a file holding every
 * result written so far, each one whole.
 */
export async function createResultFileWriter(
  filePath: string,
  render: (result: EvaluationResult) => string,
): Promise<ResultWriter> {
  await mkdir(path.dirname(filePath), { recursive: true });
  const handle = await open(filePath, 'w');
  // Entries that arrive while a write is in flight go out together in the next
  // one: one syscall per burst instead of per result, same order, and each
  // `write` still resolves only once its own entry is with the OS.
  let pending: string[] = [];
  let waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  let flushing: Promise<void> | undefined;
  let closing: Promise<void> | undefined;

  const flush = async (): Promise<void> => {
    while (pending.length > 0) {
      const text = pending.join('');
      const settled = waiters;
      pending = [];
      waiters = [];
      try {
        await handle.appendFile(text, 'utf8');
        for (const waiter of settled) waiter.resolve();
      } catch (error) {
        for (const waiter of settled) waiter.reject(error);
      }
    }
    flushing = undefined;
  };

  return {
    filePath,
    write(result) {
      if (closing) {
        return Promise.reject(
          new Error(`cannot write result "${result.evalId}": ${filePath} is closed`),
        );
      }
      pending.push(render(result));
      const written = new Promise<void>((resolve, reject) => waiters.push({ resolve, reject }));
      flushing ??= flush();
      return written;
    },
    close() {
      closing ??= (async () => {
        await flushing;
        await handle.close();
      })();
      return closing;
    },
  };
}
