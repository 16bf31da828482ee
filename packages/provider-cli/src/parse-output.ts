import {
  isRecord,
  type ProviderResponse,
  parseOutputMessages,
  parseTokenUsage,
  parseTraceEvents,
} from '@agentv/core';

/**
 * Turns an agent's output (stdout or the `{OUTPUT_FILE}` content) into a
 * response (SPEC 4.2, seeds 000/001).
 *
 * A JSON object with a `text` key gives the answer (`text`, JSON-stringified
 * when not a string) plus, when present: `trace` (invalid events dropped),
 * `output_messages` (as `outputMessages`), `usage` (snake_case token counts),
 * `cost_usd` and `duration_ms`. Anything else (not JSON, a JSON array, an
 * object without `text`) is the answer as plain text, with one trailing
 * newline removed.
 */
export function parseCliOutput(content: string): ProviderResponse {
  const record = parseJsonObject(content);
  if (record === undefined || !('text' in record)) {
    return { text: stripTrailingNewline(content) };
  }
  return parseOutputRecord(record);
}

/** Converts one wire record that has `text` (a single output or a JSONL batch line). */
export function parseOutputRecord(record: Record<string, unknown>): ProviderResponse {
  const response: ProviderResponse = { text: answerText(record.text) };
  const trace = parseTraceEvents(record.trace);
  if (trace !== undefined) response.trace = trace;
  const outputMessages = parseOutputMessages(record.output_messages ?? record.outputMessages);
  if (outputMessages !== undefined) response.outputMessages = outputMessages;
  const usage = parseTokenUsage(record.usage);
  if (usage !== undefined) response.usage = usage;
  const costUsd = finiteNumber(record.cost_usd ?? record.costUsd);
  if (costUsd !== undefined) response.costUsd = costUsd;
  const durationMs = finiteNumber(record.duration_ms ?? record.durationMs);
  if (durationMs !== undefined) response.durationMs = durationMs;
  return response;
}

function parseJsonObject(content: string): Record<string, unknown> | undefined {
  const trimmed = content.trim();
  // Only an object can carry `text`; skip parsing prose that merely starts with a word.
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function answerText(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '';
}

function finiteNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function stripTrailingNewline(content: string): string {
  if (content.endsWith('\r\n')) return content.slice(0, -2);
  if (content.endsWith('\n')) return content.slice(0, -1);
  return content;
}
