import { createResultFileWriter, type ResultWriter } from './result-file-writer.js';
import { createResultLineRenderer } from './result-line.js';
import type { ResultRecordOptions } from './to-result-record.js';

/**
 * Creates (or truncates) `filePath` and returns a writer that appends one JSON
 * line per result (README, "Running") as soon as `write` is called. A run killed midway
 * leaves a valid JSONL file holding every result written so far. With
 * `append`, lines are added after what the file already holds.
 */
export function createJsonlWriter(
  filePath: string,
  options: ResultRecordOptions & { append?: boolean } = {},
): Promise<ResultWriter> {
  const { append, ...recordOptions } = options;
  const render = createResultLineRenderer(recordOptions);
  return createResultFileWriter(filePath, render, { append, entryEnd: '\n' });
}
