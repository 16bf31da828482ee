import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { isRecord, ProviderError, type ProviderResponse } from '@agentv/core';
import { isReplyRecord, parseOutputRecord } from './parse-output.js';

const EXCERPT_CHARS = 120;

/**
 * Reads a batch's JSONL output (SPEC 4.2 batch mode, seeds 000/001/004) line
 * by line and returns the response for each requested case id.
 *
 * Each non-blank line must be a JSON object with a string `id`, read as a
 * reply by `parseOutputRecord` (`text`, or the last assistant message of
 * `output_messages`; `trace`, `token_usage` / `usage`, `cost_usd`,
 * `duration_ms`), other fields ignored. Only records of requested ids are kept, so memory grows with
 * the records kept, not with the file. Throws a retryable `ProviderError` for a
 * line that is not JSON (line number and excerpt), not an object, or has no
 * string `id` or neither `text` nor `output_messages`; for an id given twice; and for requested ids missing from the
 * output (all listed).
 */
export async function parseBatchOutput(
  filePath: string,
  requestedIds: readonly string[],
): Promise<Map<string, ProviderResponse>> {
  await assertWritten(filePath);
  const requested = new Set(requestedIds);
  const responses = new Map<string, ProviderResponse>();
  const firstLineOfId = new Map<string, number>();
  const input = createReadStream(filePath, { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let lineNumber = 0;
  try {
    for await (const line of lines) {
      lineNumber++;
      if (line.trim() === '') continue;
      // Some tools (PowerShell among them) start files with a byte-order mark.
      const record = parseLine(lineNumber === 1 ? line.replace(/^\uFEFF/, '') : line, lineNumber);
      const id = record.id;
      if (typeof id !== 'string' || id === '') {
        throw batchError(`line ${lineNumber} has no string "id": ${excerpt(line)}`);
      }
      const seenOn = firstLineOfId.get(id);
      if (seenOn !== undefined) {
        throw batchError(`line ${lineNumber} repeats id "${id}" (first on line ${seenOn})`);
      }
      firstLineOfId.set(id, lineNumber);
      if (!isReplyRecord(record)) {
        throw batchError(
          `line ${lineNumber} (id "${id}") has no "text" and no "output_messages": ${excerpt(line)}`,
        );
      }
      if (requested.has(id)) responses.set(id, parseOutputRecord(record));
    }
  } finally {
    // Closing the reader does not close the file; a failed parse must not leak it.
    lines.close();
    input.destroy();
  }
  const missing = requestedIds.filter((id) => !responses.has(id));
  if (missing.length > 0) {
    throw batchError(
      `no line for ${missing.length} of ${requestedIds.length} requested case(s): ${missing.join(', ')}`,
      'write one JSONL line {"id": "<case id>", "text": "..."} per case in the request bundle ({INPUT_FILE})',
    );
  }
  return responses;
}

function parseLine(line: string, lineNumber: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw batchError(`line ${lineNumber} is not valid JSON: ${excerpt(line)}`);
  }
  if (!isRecord(value)) {
    throw batchError(`line ${lineNumber} is not a JSON object: ${excerpt(line)}`);
  }
  return value;
}

async function assertWritten(filePath: string): Promise<void> {
  try {
    await access(filePath);
  } catch {
    throw batchError(
      `the command exited with code 0 but did not write {OUTPUT_FILE} (${filePath})`,
      'in batch mode the command must write one JSONL line per case to the {OUTPUT_FILE} path',
    );
  }
}

function excerpt(line: string): string {
  const trimmed = line.trim();
  return trimmed.length > EXCERPT_CHARS ? `${trimmed.slice(0, EXCERPT_CHARS)}…` : trimmed;
}

function batchError(message: string, hint?: string): ProviderError {
  return new ProviderError(`batch output: ${message}`, {
    retryable: true,
    ...(hint === undefined ? {} : { hint }),
  });
}
