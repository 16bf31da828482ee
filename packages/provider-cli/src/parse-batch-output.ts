import { constants, createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import {
  DEFAULT_MAX_OUTPUT_BYTES,
  formatBytes,
  isRecord,
  outputLimitError,
  ProviderError,
  type ProviderResponse,
} from '@agentv/core/provider-utils';
import { LineSplitter } from './line-splitter.js';
import { isReplyRecord, parseOutputRecord } from './parse-output.js';

const EXCERPT_CHARS = 120;

/**
 * Reads a batch's JSONL output (the output contract in the README's "Targets") line
 * by line and returns the response for each requested case, in the order of `cases`
 * (each case id with its index).
 *
 * Each non-blank line must be a JSON object with a string `id`, read as a
 * reply by `parseOutputRecord` (`text`, or the last assistant message of
 * `output_messages`; `trace`, `token_usage` / `usage`, `cost_usd`,
 * `duration_ms`), other fields ignored. Only records of requested ids are kept, so memory grows with
 * the records kept, not with the file. Throws a retryable `ProviderError` for a
 * line that is not JSON (line number and excerpt), not an object, or has no
 * string `id` or neither `text` nor `output_messages`; for an id given twice; and for requested ids missing from the
 * output (all listed). Throws a non-retryable one (core's `outputLimitError`)
 * for a line longer than `maxOutputBytes` or a file longer than
 * `maxOutputBytes` per requested case, reading no further.
 */
export async function parseBatchOutput(
  filePath: string,
  cases: ReadonlyMap<string, number>,
  maxOutputBytes = DEFAULT_MAX_OUTPUT_BYTES,
): Promise<ProviderResponse[]> {
  const file = await openWritten(filePath);
  const maxFileBytes = batchOutputLimit(maxOutputBytes, cases.size);
  // Per requested case its response and the line it came on; ids nobody asked for are only
  // checked for repeats (a Map made for the first of them).
  const responses = new Array<ProviderResponse | undefined>(cases.size).fill(undefined);
  const lineOfCase = new Array<number>(cases.size).fill(0);
  let lineOfOtherId: Map<string, number> | undefined;
  // Reads one byte past the limit at most, which tells a file at the limit from one beyond it.
  const input = createReadStream('', { fd: file, encoding: 'utf8', end: maxFileBytes });
  let lineNumber = 0;
  const readLine = (line: string) => {
    lineNumber++;
    if (line.trim() === '') return;
    // Some tools (PowerShell among them) start files with a byte-order mark.
    const reply = parseReplyLine(
      lineNumber === 1 ? line.replace(/^\uFEFF/, '') : line,
      `line ${lineNumber}`,
    );
    if (!reply.ok) throw batchError(reply.problem);
    const { id } = reply;
    const index = cases.get(id);
    const seenOn = index === undefined ? lineOfOtherId?.get(id) : lineOfCase[index] || undefined;
    if (seenOn !== undefined) {
      throw batchError(`line ${lineNumber} repeats id "${id}" (first on line ${seenOn})`);
    }
    if (index === undefined) {
      lineOfOtherId ??= new Map();
      lineOfOtherId.set(id, lineNumber);
      return;
    }
    lineOfCase[index] = lineNumber;
    responses[index] = reply.response;
  };
  const lines = new LineSplitter(readLine, {
    maxLineBytes: maxOutputBytes,
    overLimit: 'stop',
    onTooLong: (line, bytes) => {
      throw outputLimitError(
        `batch output: line ${line} of {OUTPUT_FILE} passed max_output_bytes (${formatBytes(maxOutputBytes)}) after ${formatBytes(bytes)}; each line holds the answer of one case`,
      );
    },
  });
  try {
    for await (const chunk of input) lines.push(chunk as string);
    if (input.bytesRead > maxFileBytes) {
      throw batchOutputTooLong(maxOutputBytes, cases.size);
    }
    lines.end();
  } finally {
    // A failed parse must not leak the file.
    input.destroy();
  }
  const missing: string[] = [];
  for (const [id, index] of cases) if (responses[index] === undefined) missing.push(id);
  if (missing.length > 0) {
    throw batchError(
      `no line for ${missing.length} of ${cases.size} requested case(s): ${missing.join(', ')}`,
      'write one JSONL line {"id": "<case id>", "text": "..."} per case in the request bundle ({INPUT_FILE})',
    );
  }
  return responses as ProviderResponse[];
}

/** The most bytes a batch's `{OUTPUT_FILE}` may hold: `max_output_bytes` for each case of the batch. */
export function batchOutputLimit(maxOutputBytes: number, cases: number): number {
  return maxOutputBytes * Math.max(1, cases);
}

/**
 * The error of a batch's `{OUTPUT_FILE}` past `batchOutputLimit`: `seen` is how
 * much it held and whether the command was stopped for it, when known.
 */
export function batchOutputTooLong(
  maxOutputBytes: number,
  cases: number,
  seen?: { bytes: number; stopped: boolean },
): ProviderError {
  const limit = formatBytes(batchOutputLimit(maxOutputBytes, cases));
  const what =
    seen === undefined
      ? 'it is longer'
      : seen.stopped
        ? `it held ${formatBytes(seen.bytes)} when the command was stopped`
        : `it wrote ${formatBytes(seen.bytes)}`;
  return outputLimitError(
    `batch output: {OUTPUT_FILE} passed max_output_bytes (${formatBytes(maxOutputBytes)}) for each of its ${cases} case(s), ${limit} in all: ${what}`,
  );
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

/** Opens the output for reading, never waiting for a writer (the path may be a FIFO). */
async function openWritten(filePath: string) {
  try {
    return await open(filePath, constants.O_RDONLY | constants.O_NONBLOCK);
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
