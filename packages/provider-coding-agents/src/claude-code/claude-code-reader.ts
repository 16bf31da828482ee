import type { TokenUsage, TraceEvent } from '@agentv/core/provider-utils';
import type { AgentEventReader, AgentFailure, AgentOutcome } from '../shared/agent-adapter.js';
import { canonicalClaudeToolName } from './claude-tool-names.js';

type Json = Record<string, unknown>;

interface PendingTool {
  name: string;
  rawName: string;
  calledAt: Date;
}

/**
 * Reads the events of `claude -p --output-format stream-json --verbose`: `system/init` (the
 * model), `assistant` messages (`text` and `tool_use` blocks, one event per block), `user`
 * messages (`tool_result` blocks, with `tool_use_result.stdout/stderr` for commands),
 * `system/permission_denied`, and the closing `result` with the answer and the run's totals.
 * Per-message `usage` is a snapshot taken when the message started (its prompt in full, its output
 * barely begun): summed over messages it is the running total `spent` reports while Claude Code
 * works; the outcome's usage is the `result`'s.
 */
export function createClaudeCodeReader(): AgentEventReader {
  const trace: TraceEvent[] = [];
  const tools = new Map<string, PendingTool>();
  const deniedIds = new Set<string>();
  const modelSteps = new Set<string>();
  let initModel: string | undefined;
  let result: Json | undefined;
  let streamError: AgentFailure | undefined;
  // Model requests so far: each message's largest usage snapshot, by message id.
  const requests = new Map<string, TokenUsage>();
  let requestModel: string | undefined;

  const at = (event: Json, receivedAt: Date) => eventTime(event.timestamp) ?? receivedAt;

  function readAssistant(event: Json, receivedAt: Date) {
    const message = asObject(event.message);
    if (message === undefined) return;
    const time = at(event, receivedAt);
    const timestamp = time.toISOString();
    const failure = apiFailure(event, message);
    if (failure !== undefined) {
      streamError = failure;
      trace.push({ type: 'error', timestamp, text: failure.detail ?? failure.kind });
      return;
    }
    const id = typeof message.id === 'string' ? message.id : undefined;
    const snapshot = resultUsage(message);
    if (snapshot !== undefined) {
      const key = id ?? `message ${requests.size}`;
      requests.set(key, largest(requests.get(key), snapshot));
      if (typeof message.model === 'string') requestModel = message.model;
    }
    if (id !== undefined && !modelSteps.has(id)) {
      modelSteps.add(id);
      const step: TraceEvent = { type: 'model_step', timestamp, id };
      if (typeof message.model === 'string') step.name = message.model;
      trace.push(step);
    }
    for (const block of asArray(message.content)) {
      const part = asObject(block);
      if (part?.type === 'text' && typeof part.text === 'string' && part.text !== '') {
        trace.push({ type: 'message', timestamp, text: part.text });
      } else if (part?.type === 'tool_use' && typeof part.name === 'string') {
        const name = canonicalClaudeToolName(part.name);
        const callId = typeof part.id === 'string' ? part.id : undefined;
        if (callId !== undefined) tools.set(callId, { name, rawName: part.name, calledAt: time });
        const call: TraceEvent = { type: 'tool_call', timestamp, name, rawName: part.name };
        if (callId !== undefined) call.id = callId;
        if (part.input !== undefined) call.input = part.input;
        const parent = subagentOf(event);
        if (parent !== undefined) call.metadata = { parent_tool_use_id: parent };
        trace.push(call);
      }
    }
  }

  function readUser(event: Json, receivedAt: Date) {
    const message = asObject(event.message);
    const time = at(event, receivedAt);
    const timestamp = time.toISOString();
    const detail = asObject(event.tool_use_result);
    for (const block of asArray(message?.content)) {
      const part = asObject(block);
      if (part?.type !== 'tool_result') continue;
      const callId = typeof part.tool_use_id === 'string' ? part.tool_use_id : undefined;
      const tool = callId === undefined ? undefined : tools.get(callId);
      const resultEvent: TraceEvent = { type: 'tool_result', timestamp };
      const output = toolOutput(part.content);
      if (output !== undefined) resultEvent.output = output;
      if (callId !== undefined) resultEvent.id = callId;
      if (tool !== undefined) {
        resultEvent.name = tool.name;
        resultEvent.rawName = tool.rawName;
      }
      const metadata: Json = {};
      const parent = subagentOf(event);
      if (parent !== undefined) metadata.parent_tool_use_id = parent;
      if (tool !== undefined) {
        metadata.duration_ms = Math.max(0, time.getTime() - tool.calledAt.getTime());
      }
      if (part.is_error === true) metadata.is_error = true;
      if (typeof detail?.stdout === 'string') metadata.stdout = detail.stdout;
      if (typeof detail?.stderr === 'string' && detail.stderr !== '')
        metadata.stderr = detail.stderr;
      if (Object.keys(metadata).length > 0) resultEvent.metadata = metadata;
      trace.push(resultEvent);
    }
  }

  function readDenial(event: Json, receivedAt: Date) {
    const rawName = typeof event.tool_name === 'string' ? event.tool_name : undefined;
    const callId = typeof event.tool_use_id === 'string' ? event.tool_use_id : undefined;
    if (callId !== undefined) deniedIds.add(callId);
    trace.push(denialEvent(at(event, receivedAt), rawName, callId, event.message));
  }

  return {
    push(raw, receivedAt) {
      const event = asObject(raw);
      if (event === undefined) return;
      if (event.type === 'system' && event.subtype === 'init') {
        if (typeof event.model === 'string') initModel = event.model;
      } else if (event.type === 'system' && event.subtype === 'permission_denied') {
        readDenial(event, receivedAt);
      } else if (event.type === 'assistant') {
        readAssistant(event, receivedAt);
      } else if (event.type === 'user') {
        readUser(event, receivedAt);
      } else if (event.type === 'result') {
        result = event;
        // Denials the stream did not announce one by one still reach the trace.
        for (const denial of asArray(event.permission_denials)) {
          const entry = asObject(denial);
          const callId = typeof entry?.tool_use_id === 'string' ? entry.tool_use_id : undefined;
          if (callId !== undefined && deniedIds.has(callId)) continue;
          if (callId !== undefined) deniedIds.add(callId);
          const rawName = typeof entry?.tool_name === 'string' ? entry.tool_name : undefined;
          trace.push(denialEvent(receivedAt, rawName, callId, undefined));
        }
      }
    },

    spent() {
      if (requests.size === 0) return undefined;
      let usage: TokenUsage = {};
      for (const request of requests.values()) usage = sum(usage, request);
      const model = requestModel ?? initModel;
      return model === undefined ? { usage } : { usage, model };
    },

    finish(exit) {
      const outcome: AgentOutcome = { trace };
      const model = resultModel(result) ?? initModel;
      if (model !== undefined) outcome.model = model;
      if (result === undefined) {
        if (streamError !== undefined) outcome.failure = streamError;
        else if (exit.exitCode !== undefined && exit.exitCode !== 0) {
          outcome.failure = { kind: 'agent_error', detail: lastLine(exit.stderr) };
        }
        return outcome;
      }
      const usage = resultUsage(result);
      if (usage !== undefined) outcome.usage = usage;
      const cost = resultCost(result);
      if (cost !== undefined) outcome.costUsd = cost;
      const answer = typeof result.result === 'string' ? result.result : undefined;
      if (result.is_error === true) {
        outcome.failure = streamError ?? resultFailure(result, answer);
        return outcome;
      }
      if (answer !== undefined && answer.trim() !== '') outcome.answer = answer;
      const denied = denialSummary(trace);
      if (denied !== undefined) outcome.warnings = [denied];
      return outcome;
    },
  };
}

function denialEvent(
  time: Date,
  rawName: string | undefined,
  callId: string | undefined,
  message: unknown,
): TraceEvent {
  const event: TraceEvent = {
    type: 'error',
    timestamp: time.toISOString(),
    text:
      typeof message === 'string' && message !== ''
        ? message
        : `Claude Code was denied the ${rawName ?? 'tool'} call`,
    metadata: { permission_denied: true },
  };
  if (callId !== undefined) event.id = callId;
  if (rawName !== undefined) {
    event.name = canonicalClaudeToolName(rawName);
    event.rawName = rawName;
  }
  return event;
}

/** One line naming the tools Claude Code was denied and what lets it use them. */
function denialSummary(trace: readonly TraceEvent[]): string | undefined {
  const names = trace
    .filter((event) => event.type === 'error' && event.metadata?.permission_denied === true)
    .map((event) => event.rawName ?? 'a tool');
  if (names.length === 0) return undefined;
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  const list = [...counts].map(([name, n]) => (n > 1 ? `${name} ×${n}` : name)).join(', ');
  return (
    `Claude Code was denied ${names.length} tool call${names.length > 1 ? 's' : ''} (${list}): ` +
    'its permission_mode did not cover them; set permission_mode: full, or list the tools in allowed_tools'
  );
}

/** A failed model request, as Claude Code reports it in a synthetic assistant message. */
function apiFailure(event: Json, message: Json): AgentFailure | undefined {
  if (typeof event.error !== 'string' && event.is_api_error_message !== true) return undefined;
  const detail = firstText(message.content);
  const failure: AgentFailure = {
    kind: failureKind(event.error, event.api_error_status, event.api_error_type),
  };
  if (detail !== undefined) failure.detail = detail;
  return failure;
}

function resultFailure(result: Json, answer: string | undefined): AgentFailure {
  const failure: AgentFailure = {
    kind: failureKind(undefined, result.api_error_status, result.api_error_type),
  };
  const detail = answer?.trim() || (typeof result.subtype === 'string' ? result.subtype : '');
  if (detail !== '') failure.detail = detail;
  return failure;
}

function failureKind(error: unknown, status: unknown, type: unknown): AgentFailure['kind'] {
  if (error === 'authentication_failed' || status === 401 || type === 'authentication_error') {
    return 'auth';
  }
  if (error === 'model_not_found' || status === 404 || type === 'not_found_error') {
    return 'model_not_found';
  }
  return 'agent_error';
}

/** Each count of `a` and `b`, the larger one (a message's usage grows as it streams). */
function largest(a: TokenUsage | undefined, b: TokenUsage): TokenUsage {
  const merged: TokenUsage = { ...a };
  for (const [key, value] of Object.entries(b)) {
    if (value !== undefined) merged[key] = Math.max(merged[key] ?? 0, value);
  }
  return merged;
}

function sum(a: TokenUsage, b: TokenUsage): TokenUsage {
  const total: TokenUsage = { ...a };
  for (const [key, value] of Object.entries(b)) {
    if (value !== undefined) total[key] = (total[key] ?? 0) + value;
  }
  return total;
}

/** The `usage` of a `result` or an `assistant` message, the prompt's cached tokens counted as input. */
function resultUsage(result: Json): TokenUsage | undefined {
  const usage = asObject(result.usage);
  if (usage === undefined) return undefined;
  const input = count(usage.input_tokens);
  const cacheRead = count(usage.cache_read_input_tokens);
  const cacheWrite = count(usage.cache_creation_input_tokens);
  const output = count(usage.output_tokens);
  // Anthropic counts cached prompt tokens apart from `input_tokens`; AgentV's input is the whole prompt.
  const inputTokens = input + cacheRead + cacheWrite;
  const tokens: TokenUsage = {
    inputTokens,
    outputTokens: output,
    totalTokens: inputTokens + output,
  };
  if (cacheRead > 0) tokens.cachedTokens = cacheRead;
  const thinking = count(asObject(usage.output_tokens_details)?.thinking_tokens);
  if (thinking > 0) tokens.reasoningTokens = thinking;
  return tokens;
}

/**
 * `total_cost_usd`, unless Claude Code priced every model on a guess (`costBasis: unknown`, a
 * model it has no price for, as behind a gateway): then the price table prices the usage.
 */
function resultCost(result: Json): number | undefined {
  if (typeof result.total_cost_usd !== 'number' || !Number.isFinite(result.total_cost_usd)) {
    return undefined;
  }
  const models = Object.values(asObject(result.modelUsage) ?? {}).map(asObject);
  if (models.length > 0 && models.every((model) => model?.costBasis === 'unknown')) {
    return undefined;
  }
  return result.total_cost_usd;
}

function resultModel(result: Json | undefined): string | undefined {
  const names = Object.keys(asObject(result?.modelUsage) ?? {});
  return names[0];
}

/** A tool result's text (its text blocks joined), else its blocks as they are (images…). */
function toolOutput(content: unknown): unknown {
  if (typeof content === 'string' || !Array.isArray(content)) return content;
  const blocks = content;
  const texts = blocks
    .map(asObject)
    .filter((block) => block?.type === 'text' && typeof block.text === 'string')
    .map((block) => block?.text as string);
  return texts.length === blocks.length ? texts.join('\n') : content;
}

function firstText(content: unknown): string | undefined {
  for (const block of asArray(content)) {
    const part = asObject(block);
    if (part?.type === 'text' && typeof part.text === 'string' && part.text !== '')
      return part.text;
  }
  return undefined;
}

/** The `Agent` call a subagent's event belongs to (its events share the stream). */
function subagentOf(event: Json): string | undefined {
  return typeof event.parent_tool_use_id === 'string' ? event.parent_tool_use_id : undefined;
}

function eventTime(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? undefined : time;
}

function lastLine(text: string): string | undefined {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  return lines.at(-1);
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function asObject(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Json)
    : undefined;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
