import { createResultFileWriter, type ResultWriter } from './result-file-writer.js';
import { type ResultRecordOptions, toResultRecord } from './to-result-record.js';

/**
 * Creates (or truncates) `filePath` and returns a writer that appends each
 * result as its own YAML document, starting with `---`, with the same fields
 * as a JSONL line. Multiline strings (answers, reasoning, traces) are written
 * as literal blocks, so they read as they were produced. A run killed midway
 * leaves a valid multi-document YAML file.
 */
export async function createYamlWriter(
  filePath: string,
  options: ResultRecordOptions = {},
): Promise<ResultWriter> {
  // The `yaml` package loads only for a run that writes YAML (it is ~230 KB of JavaScript).
  const { stringifyYaml } = await import('./stringify-yaml.js');
  return createResultFileWriter(
    filePath,
    (result) => `---\n${stringifyYaml(toResultRecord(result, options))}`,
  );
}
