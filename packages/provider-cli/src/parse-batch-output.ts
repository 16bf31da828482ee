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
      const reply = parseReplyLine(
        lineNumber === 1 ? line.replace(/^\uFEFF/, '') : line,
        `line ${lineNumber}`,
      );
      if (!reply.ok) throw batchError(reply.problem);
      const { id } = reply;
      const seenOn = firstLineOfId.get(id);
      if (seenOn !== undefined) {
        throw batchError(`line ${lineNumber} repeats id "${id}" (first on line ${seenOn})`);
      }
      firstLineOfId.set(id, lineNumber);
      if (requested.has(id)) responses.set(id, reply.response);
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

/** One reply line read by `parseReplyLine`: its id and response, or what is wrong with it. */
export type ReplyLine =
  | { ok: true; id: string; response: ProviderResponse }
  | { ok: false; problem: string };

/**
 * Reads one JSONL reply line (a batch output line or a persistent agent's
 * response): a JSON object with a string `id` and `text` or `output_messages`,
 * converted by `parseOutputRecord`. A bad line gives a problem that starts
 * with `label` (`line 3`) and ends with an excerpt of the line.
 */
export function parseReplyLine(line: string, label: string): ReplyLine {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return { ok: false, problem: `${label} is not valid JSON: ${excerpt(line)}` };
  }
  if (!isRecord(record)) {
    return { ok: false, problem: `${label} is not a JSON object: ${excerpt(line)}` };
  }
  const id = record.id;
  if (typeof id !== 'string' || id === '') {
    return { ok: false, problem: `${label} has no string "id": ${excerpt(line)}` };
  }
  if (!isReplyRecord(record)) {
    return {
      ok: false,
      problem: `${label} (id "${id}") has no "text" and no "output_messages": ${excerpt(line)}`,
    };
  }
  return { ok: true, id, response: parseOutputRecord(record) };
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

/** The line, trimmed and cut to 120 characters, for messages. */
export function excerpt(line: string): string {
  const trimmed = line.trim();
  return trimmed.length > EXCERPT_CHARS ? `${trimmed.slice(0, EXCERPT_CHARS)}…` : trimmed;
}

function batchError(message: string, hint?: string): ProviderError {
  return new ProviderError(`batch output: ${message}`, {
    retryable: true,
    ...(hint === undefined ? {} : { hint }),
  });
}
