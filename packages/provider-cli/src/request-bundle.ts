import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { ProviderRequest } from '@agentv/core';
import { requestRecord } from './placeholder-values.js';

/**
 * Writes the batch request bundle for `{INPUT_FILE}`: JSONL, one line per
 * case with `id`, `question`, `guidelines`, `guideline_files`, `input_files`,
 * `input_messages` and `expected_outcome`, so a batch runner never has to read
 * the eval YAML. Streams, so a large batch is never one big string.
 */
export async function writeRequestBundle(
  filePath: string,
  requests: readonly ProviderRequest[],
): Promise<void> {
  const stream = createWriteStream(filePath, { encoding: 'utf8', mode: 0o600 });
  try {
    for (const request of requests) {
      if (!stream.write(`${JSON.stringify(requestRecord(request))}\n`)) {
        await once(stream, 'drain');
      }
    }
  } finally {
    stream.end();
    await once(stream, 'close');
  }
}
