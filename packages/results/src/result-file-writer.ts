import { writeSync } from 'node:fs';
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

  return {
    filePath,
    async write(result) {
      if (closing) throw new Error(`cannot write result "${result.evalId}": ${filePath} is closed`);
      // A synchronous write hands each entry to the OS before `write` returns, so
      // entries never interleave and a killed run keeps every one written; for
      // small lines it is also far cheaper than a thread-pool round trip per result.
      const bytes = Buffer.from(render(result), 'utf8');
      let offset = 0;
      while (offset < bytes.length) {
        offset += writeSync(handle.fd, bytes, offset, bytes.length - offset);
      }
    },
    close() {
      closing ??= handle.close();
      return closing;
    },
  };
}
