import { writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { ChatMessage, ProviderRequest } from '@agentv/core/provider-utils';

/** Text gathered before one write to the bundle. */
const CHUNK_CHARS = 65_536;

/**
 * Writes the batch request bundle for `{INPUT_FILE}`: JSONL, one line per
 * case with `id`, `question`, `guidelines`, `guideline_files`, `input_files`,
 * `input_messages`, `expected_outcome` and `workspace` (when the case has one), so a batch runner never has to read
 * the eval YAML. Written a chunk at a time, so a large batch is never one big string; each
 * chunk synchronously, as the result file is: a thread-pool round trip per chunk cost more
 * than the write.
 */
export async function writeRequestBundle(
  filePath: string,
  requests: readonly ProviderRequest[],
): Promise<void> {
  const handle = await open(filePath, 'w', 0o600);
  try {
    let chunk = '';
    for (const request of requests) {
      chunk += `${requestLine(request)}\n`;
      if (chunk.length < CHUNK_CHARS) continue;
      writeAll(handle.fd, chunk);
      chunk = '';
    }
    if (chunk !== '') writeAll(handle.fd, chunk);
  } finally {
    await handle.close();
  }
}

function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
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
  if (request.chatPrompt.length > 0) record.input_messages = request.chatPrompt.map(messageRecord);
  if (request.expectedOutcome !== undefined) record.expected_outcome = request.expectedOutcome;
  if (request.workspace !== undefined) record.workspace = request.workspace;
  return JSON.stringify(record);
}

/** A message of `input_messages`: each object made whole, in the order of its keys. */
function messageRecord(message: ChatMessage): Record<string, unknown> {
  return message.name === undefined
    ? { role: message.role, content: message.content }
    : { role: message.role, name: message.name, content: message.content };
}
