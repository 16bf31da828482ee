import {
  isRecord,
  type OutputMessage,
  type ProviderResponse,
  parseJsonObject,
  parseOutputMessages,
  parseTokenUsage,
  parseTraceEvents,
  type TokenUsage,
} from '@agentv/core/provider-utils';

/**
 * Turns an agent's output (stdout or the `{OUTPUT_FILE}` content) into a
 * response (the output contract in the README's "Targets").
 *
 * A JSON object that is a reply (`isReplyRecord`) gives the answer and, when
 * present, `trace` (invalid events dropped), `output` or `output_messages` (as
 * `outputMessages`), token counts (`token_usage` or `usage`), `cost_usd` and
 * `duration_ms`. Anything else (not JSON, a JSON array, an object that is not
 * a reply) is the answer as plain text, with one trailing newline removed.
 */
export function parseCliOutput(content: string): ProviderResponse {
  const record = parseJsonObject(content);
  if (record === undefined || !isReplyRecord(record)) {
    return { text: stripTrailingNewline(content) };
  }
  return parseOutputRecord(record);
}

/**
 * True when a wire record is a reply: it has `text`, or (as AgentV reads it)
 * `output` or `output_messages` holding at least one valid message.
 */
export function isReplyRecord(record: Record<string, unknown>): boolean {
  if ('text' in record) return true;
  const messages = replyMessages(record);
  return messages !== undefined && messages.length > 0;
}

/**
 * Converts one reply record (a single output or a JSONL batch line). The answer
 * is `text` (JSON-stringified when not a string); without `text` it is the
 * content of the last assistant message that has content (`''` when none), as
 * AgentV answers. Token counts come from AgentV's `token_usage` (`input`,
 * `output`, `cached`) or from `usage` (`input_tokens`, ...); a negative
 * `cost_usd` or `duration_ms` is ignored.
 */
export function parseOutputRecord(record: Record<string, unknown>): ProviderResponse {
  const outputMessages = replyMessages(record);
  const text =
    'text' in record ? answerText(record.text) : lastAssistantContent(outputMessages ?? []);
  const response: ProviderResponse = { text };
  if (Array.isArray(record.trace)) {
    const dropped: string[] = [];
    response.trace = parseTraceEvents(record.trace, dropped)!;
    if (dropped.length > 0) response.warnings = dropped;
  }
  if (outputMessages !== undefined) response.outputMessages = outputMessages;
  const usage =
    agentTokenUsage(record.token_usage ?? record.tokenUsage) ?? parseTokenUsage(record.usage);
  if (usage !== undefined) response.usage = usage;
  const costUsd = nonNegative(record.cost_usd ?? record.costUsd);
  if (costUsd !== undefined) response.costUsd = costUsd;
  const durationMs = nonNegative(record.duration_ms ?? record.durationMs);
  if (durationMs !== undefined) response.durationMs = durationMs;
  return response;
}

/**
 * The reply's messages: `output` (AgentV 4.x's name) when it is a list of messages, else
 * `output_messages` (or `outputMessages`).
 */
function replyMessages(record: Record<string, unknown>): OutputMessage[] | undefined {
  const output = Array.isArray(record.output) ? parseOutputMessages(record.output) : undefined;
  if (output !== undefined && output.length > 0) return output;
  return parseOutputMessages(record.output_messages ?? record.outputMessages);
}

/** AgentV's `token_usage: {input, output, cached?}` as `TokenUsage`; undefined when it holds no count. */
function agentTokenUsage(value: unknown): TokenUsage | undefined {
  if (!isRecord(value)) return undefined;
  const usage: TokenUsage = {};
  const input = nonNegative(value.input);
  const output = nonNegative(value.output);
  const cached = nonNegative(value.cached);
  if (input !== undefined) usage.inputTokens = input;
  if (output !== undefined) usage.outputTokens = output;
  if (cached !== undefined) usage.cachedTokens = cached;
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/**
 * The answer of a reply without `text`: the content of the last assistant
 * message that has content — a string as is, a list of content blocks as its
 * `text` blocks joined by newlines, anything else as JSON.
 */
function lastAssistantContent(messages: readonly OutputMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role !== 'assistant' || message.content === undefined) continue;
    const content = message.content;
    if (typeof content === 'string') return content;
    if (isContentBlocks(content)) {
      return content
        .filter((block) => block.type === 'text' && typeof block.text === 'string')
        .map((block) => block.text as string)
        .join('\n');
    }
    return JSON.stringify(content) ?? '';
  }
  return '';
}

function isContentBlocks(value: unknown): value is Record<string, unknown>[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((block) => isRecord(block) && typeof block.type === 'string')
  );
}

function answerText(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '';
}

function nonNegative(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function stripTrailingNewline(content: string): string {
  if (content.endsWith('\r\n')) return content.slice(0, -2);
  if (content.endsWith('\n')) return content.slice(0, -1);
  return content;
}
