import { isRecord, type TokenUsage, type TraceEvent } from '@agentv/core/provider-utils';
import type { AgentEventReader, AgentFailure, AgentOutcome } from '../shared/agent-adapter.js';
import { classifyFailureText } from '../shared/classify-failure.js';
import { textEvent, toolCallEvent, toolResultEvent } from '../shared/tool-events.js';
import { canonicalGeminiToolName } from './gemini-tool-names.js';

type Json = Record<string, unknown>;

/** Gemini CLI's exit code when no usable authentication is configured. */
export const GEMINI_AUTH_EXIT_CODE = 41;

/** Tool errors that mean the call was refused, not that the tool ran and failed. */
const REFUSED = new Set(['tool_not_registered', 'policy_violation', 'permission_denied']);

/**
 * Reads `gemini --output-format stream-json` (one event per line, each with its `timestamp`):
 * `init` (the model), `message` (the user's prompt; the assistant's text in `delta` pieces),
 * `tool_use` / `tool_result` (paired by `tool_id`), `error` (a warning or error of the run), and
 * the closing `result` with `status` and the run's token totals in `stats`. The answer is the
 * text the model wrote after its last tool call; text written before a tool call is a `message`
 * event of the trace.
 */
export function createGeminiCliReader(): AgentEventReader {
  const trace: TraceEvent[] = [];
  const tools = new Map<string, { rawName: string; calledAt: Date }>();
  const refused: string[] = [];
  let model: string | undefined;
  let text: { content: string; at: Date } | undefined;
  let answer: string | undefined;
  let result: Json | undefined;
  let lastError: string | undefined;

  const at = (event: Json, receivedAt: Date) => eventTime(event.timestamp) ?? receivedAt;
  /** Closes the text the model is writing: a trace message, and the answer so far. */
  const endText = () => {
    if (text === undefined) return;
    if (text.content.trim() !== '') trace.push(textEvent('message', text.content, text.at));
    answer = text.content.trim() === '' ? undefined : text.content;
    text = undefined;
  };

  function readToolUse(event: Json, time: Date) {
    endText();
    answer = undefined;
    const rawName = typeof event.tool_name === 'string' ? event.tool_name : 'unknown';
    const id = typeof event.tool_id === 'string' ? event.tool_id : undefined;
    if (id !== undefined) tools.set(id, { rawName, calledAt: time });
    trace.push(toolCallEvent(canonicalGeminiToolName, rawName, time, id, event.parameters));
  }

  function readToolResult(event: Json, time: Date) {
    const id = typeof event.tool_id === 'string' ? event.tool_id : undefined;
    const tool = id === undefined ? undefined : tools.get(id);
    const error = isRecord(event.error) ? event.error : undefined;
    const metadata: Json = {};
    if (typeof event.status === 'string') metadata.status = event.status;
    if (typeof error?.type === 'string') metadata.error_type = error.type;
    if (typeof error?.type === 'string' && REFUSED.has(error.type)) {
      metadata.permission_denied = true;
      refused.push(tool?.rawName ?? 'a tool');
    }
    const output = typeof event.output === 'string' ? event.output : error?.message;
    trace.push(
      toolResultEvent(canonicalGeminiToolName, tool?.rawName ?? 'unknown', time, id, output, {
        ...(tool === undefined ? {} : { startedAt: tool.calledAt }),
        metadata,
      }),
    );
  }

  return {
    push(raw, receivedAt) {
      if (!isRecord(raw)) return;
      const time = at(raw, receivedAt);
      switch (raw.type) {
        case 'init':
          if (typeof raw.model === 'string') model = raw.model;
          return;
        case 'message':
          if (raw.role !== 'assistant' || typeof raw.content !== 'string') return;
          if (raw.delta === true) {
            text ??= { content: '', at: time };
            text.content += raw.content;
          } else {
            endText();
            text = { content: raw.content, at: time };
          }
          return;
        case 'tool_use':
          readToolUse(raw, time);
          return;
        case 'tool_result':
          readToolResult(raw, time);
          return;
        case 'error':
          if (typeof raw.message === 'string') {
            if (raw.severity !== 'warning') lastError = raw.message;
            const event = textEvent('error', raw.message, time);
            if (typeof raw.severity === 'string') event.metadata = { severity: raw.severity };
            trace.push(event);
          }
          return;
        case 'result':
          endText();
          result = raw;
          if (isRecord(raw.error) && typeof raw.error.message === 'string') {
            trace.push(textEvent('error', raw.error.message, time));
          }
          return;
        default:
          return;
      }
    },
    finish({ exitCode, stderr }): AgentOutcome {
      endText();
      const outcome: AgentOutcome = { trace };
      const stats = isRecord(result?.stats) ? result.stats : undefined;
      const usage = statsUsage(stats);
      if (usage !== undefined) outcome.usage = usage;
      const used = statsModel(stats) ?? model;
      if (used !== undefined) outcome.model = used;
      const failure = readFailure(result, lastError, exitCode, stderr);
      if (failure !== undefined) {
        outcome.failure = failure;
        return outcome;
      }
      if (result !== undefined && answer !== undefined) outcome.answer = answer;
      if (refused.length > 0) outcome.warnings = [refusalSummary(refused)];
      return outcome;
    },
  };
}

/** Why the run failed, from the `result` event, the last error event, the exit code and stderr. */
function readFailure(
  result: Json | undefined,
  lastError: string | undefined,
  exitCode: number | undefined,
  stderr: string,
): AgentFailure | undefined {
  const reported =
    isRecord(result?.error) && typeof result.error.message === 'string'
      ? result.error.message
      : undefined;
  if (exitCode === GEMINI_AUTH_EXIT_CODE) {
    return withDetail('auth', reported ?? lastLine(stderr));
  }
  if (
    result?.status === 'error' ||
    (result === undefined && exitCode !== 0 && exitCode !== undefined)
  ) {
    const message = reported ?? lastError ?? lastLine(stderr);
    return withDetail(
      message === undefined ? 'agent_error' : classifyFailureText(message),
      message,
    );
  }
  return undefined;
}

function withDetail(kind: AgentFailure['kind'], message: string | undefined): AgentFailure {
  const failure: AgentFailure = { kind };
  if (message !== undefined) failure.detail = oneLine(apiMessage(message));
  return failure;
}

/**
 * The API's own message inside Gemini CLI's `[API Error: {"error":{…,"message":"…"}}]`, else
 * the text as it is.
 */
function apiMessage(text: string): string {
  const json = /^\[API Error: (\{.*\})\]$/s.exec(text.trim())?.[1];
  if (json === undefined) return text.replace(/^\[API Error: (.*)\]$/s, '$1');
  try {
    const parsed: unknown = JSON.parse(json);
    const error = isRecord(parsed) && isRecord(parsed.error) ? parsed.error : undefined;
    if (typeof error?.message === 'string') {
      return typeof error.code === 'number' ? `${error.code} ${error.message}` : error.message;
    }
  } catch {}
  return text;
}

/** One line naming the tools Gemini CLI refused and what lets it use them. */
function refusalSummary(names: string[]): string {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  const list = [...counts].map(([name, n]) => (n > 1 ? `${name} ×${n}` : name)).join(', ');
  return (
    `Gemini CLI refused ${names.length} tool call${names.length > 1 ? 's' : ''} (${list}): ` +
    'its permission_mode did not offer them, or denied_tools took them away; set permission_mode: full, or list the tools in allowed_tools'
  );
}

/**
 * The run's totals: `input_tokens` is the whole prompt (cached tokens included, also given as
 * `cached`), `total_tokens` Gemini's own total (thinking tokens included).
 */
function statsUsage(stats: Json | undefined): TokenUsage | undefined {
  if (stats === undefined) return undefined;
  const input = count(stats.input_tokens);
  const output = count(stats.output_tokens);
  if (input === 0 && output === 0) return undefined;
  const usage: TokenUsage = {
    inputTokens: input,
    outputTokens: output,
    totalTokens: Math.max(count(stats.total_tokens), input + output),
  };
  const cached = count(stats.cached);
  if (cached > 0) usage.cachedTokens = cached;
  return usage;
}

function statsModel(stats: Json | undefined): string | undefined {
  const models = isRecord(stats?.models) ? Object.keys(stats.models) : [];
  return models[0];
}

function eventTime(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? undefined : time;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

function lastLine(text: string): string | undefined {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .at(-1);
}
