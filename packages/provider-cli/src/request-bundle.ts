import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { ProviderRequest } from '@agentv/core/provider-utils';

/** Text gathered before one write to the bundle. */
const CHUNK_CHARS = 65_536;

/**
 * Writes the batch request bundle for `{INPUT_FILE}`: JSONL, one line per
 * case with `id`, `question`, `guidelines`, `guideline_files`, `input_files`,
 * `input_messages`, `expected_outcome` and `workspace` (when the case has one), so a batch runner never has to read
 * the eval YAML. Streams, so a large batch is never one big string.
 */
export async function writeRequestBundle(
  filePath: string,
  requests: readonly ProviderRequest[],
): Promise<void> {
  const stream = createWriteStream(filePath, { encoding: 'utf8', mode: 0o600 });
  try {
    let chunk = '';
    for (const request of requests) {
      chunk += `${requestLine(request)}\n`;
      if (chunk.length < CHUNK_CHARS) continue;
      const ready = stream.write(chunk);
      chunk = '';
      if (!ready) await once(stream, 'drain');
    }
    if (chunk !== '') stream.write(chunk);
  } finally {
    stream.end();
    await once(stream, 'close');
  }
}

/**
 * `JSON.stringify(requestRecord(request))`, with the record's fields assigned one by one
 * (a bundle holds a line per case, and objects built with spreads are slow).
 */
export function requestLine(request: ProviderRequest): string {
  const record: Record<string, unknown> = {
    id: request.evalCaseId,
    question: request.question,
    guidelines: request.guidelines,
    guideline_files: request.guidelineFiles,
    input_files: request.inputFiles,
  };
  if (request.chatPrompt.length > 0) {
    record.input_messages = request.chatPrompt.map((message) => {
      const line: Record<string, unknown> = { role: message.role };
      if (message.name !== undefined) line.name = message.name;
      line.content = message.content;
      return line;
    });
  }
  if (request.expectedOutcome !== undefined) record.expected_outcome = request.expectedOutcome;
  if (request.workspace !== undefined) record.workspace = request.workspace;
  return JSON.stringify(record);
}
