import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import type { EvaluationResult } from '@agentv/core';
import { type ResultRecordOptions, toResultRecord } from './to-result-record.js';

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
 * returns a writer that appends one JSON line per result as soon as `write` is
 * called. Writes are serialised, so concurrent calls never interleave and
 * lines appear in call order; a run killed midway leaves a valid JSONL file
 * holding every result written so far.
 */
export async function createJsonlWriter(
  filePath: string,
  options: ResultRecordOptions = {},
): Promise<ResultWriter> {
  await mkdir(path.dirname(filePath), { recursive: true });
  const handle = await open(filePath, 'w');
  let queue: Promise<void> = Promise.resolve();
  let closing: Promise<void> | undefined;

  const enqueue = (task: () => Promise<void>): Promise<void> => {
    const run = queue.then(task);
    // A failed write must not stop the ones queued after it.
    queue = run.catch(() => {});
    return run;
  };

  return {
    filePath,
    async write(result) {
      if (closing) throw new Error(`cannot write result "${result.evalId}": ${filePath} is closed`);
      const line = `${JSON.stringify(toResultRecord(result, options))}\n`;
      return enqueue(() => handle.appendFile(line, 'utf8'));
    },
    close() {
      closing ??= enqueue(() => handle.close());
      return closing;
    },
  };
}
