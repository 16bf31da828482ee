import { isRecord, type TokenUsage, type TraceEvent } from '@agentv/core/provider-utils';
import type { AgentEventReader, AgentFailure, AgentOutcome } from '../shared/agent-adapter.js';
import { classifyFailureText, failureLine, lastLine } from '../shared/classify-failure.js';
import { textEvent } from '../shared/tool-events.js';
import { canonicalOpencodeToolName } from './opencode-tool-names.js';

type Json = Record<string, unknown>;

/**
 * Reads `opencode run --format json` (one event per line, each with the `part` it is about):
 * `step_start` opens a model step (a `model_step` event); `tool_use` is a finished tool call
 * (`part.state` with `input`, `output` or `error`, and `time.start` / `time.end` in ms, which
 * time the `tool_call` / `tool_result` pair); `text` is the model's text; `step_finish` adds the
 * step's `tokens` and `cost` (the running totals `spent` reports while opencode works); `error` is the failure (an `APIError` with the HTTP status). The
 * answer is the text of the last step: a run whose last step said nothing has no answer. Calls
 * of tools opencode did not offer (its `invalid` tool) make a warning.
 */
export function createOpencodeReader(): AgentEventReader {
  const trace: TraceEvent[] = [];
  let stepTexts: string[] = [];
  let answer: string | undefined;
  let usage: TokenUsage | undefined;
  let cost = 0;
  let failure: AgentFailure | undefined;
  const notOffered: string[] = [];
  let offered: string | undefined;

  const readTool = (part: Json, at: Date) => {
    const own = typeof part.tool === 'string' ? part.tool : 'unknown';
    const state = isRecord(part.state) ? part.state : {};
    const time = isRecord(state.time) ? state.time : {};
    const startedAt = msDate(time.start) ?? at;
    const endedAt = msDate(time.end) ?? at;
    const name = canonicalOpencodeToolName(own, state.input);
    const id = typeof part.callID === 'string' ? part.callID : undefined;
    const call: TraceEvent = {
      type: 'tool_call',
      timestamp: startedAt.toISOString(),
      name,
      rawName: own,
    };
    if (id !== undefined) call.id = id;
    if (state.input !== undefined) call.input = state.input;
    const result: TraceEvent = {
      type: 'tool_result',
      timestamp: endedAt.toISOString(),
      name,
      rawName: own,
    };
    if (id !== undefined) result.id = id;
    const output = state.status === 'error' ? state.error : state.output;
    if (output !== undefined) result.output = output;
    const metadata: Json = {
      duration_ms: Math.max(0, endedAt.getTime() - startedAt.getTime()),
    };
    if (typeof state.status === 'string') metadata.status = state.status;
    const detail = isRecord(state.metadata) ? state.metadata : {};
    if (typeof detail.exit === 'number') metadata.exit_code = detail.exit;
    if (typeof state.title === 'string') metadata.title = state.title;
    result.metadata = metadata;
    trace.push(call, result);
    // opencode answers a call of a tool it did not offer with its `invalid` tool.
    const input = isRecord(state.input) ? state.input : {};
    if (own === 'invalid' && typeof input.tool === 'string') {
      notOffered.push(input.tool);
      if (typeof input.error === 'string') {
        offered = /Available tools: ([^.]*)/.exec(input.error)?.[1] ?? offered;
      }
    }
  };

  return {
    push(raw, receivedAt) {
      if (!isRecord(raw)) return;
      const at = msDate(raw.timestamp) ?? receivedAt;
      const part = isRecord(raw.part) ? raw.part : {};
      switch (raw.type) {
        case 'step_start': {
          stepTexts = [];
          const step: TraceEvent = { type: 'model_step', timestamp: at.toISOString() };
          if (typeof part.messageID === 'string') step.id = part.messageID;
          trace.push(step);
          return;
        }
        case 'tool_use':
          readTool(part, at);
          return;
        case 'text':
          if (typeof part.text === 'string' && part.text !== '') {
            stepTexts.push(part.text);
            const time = isRecord(part.time) ? part.time : {};
            trace.push(textEvent('message', part.text, msDate(time.end) ?? at));
          }
          return;
        case 'step_finish': {
          answer = stepTexts.length > 0 ? stepTexts.join('\n\n') : undefined;
          usage = addUsage(usage, stepUsage(part.tokens));
          if (typeof part.cost === 'number' && Number.isFinite(part.cost)) cost += part.cost;
          return;
        }
        case 'error': {
          const error = readError(raw.error);
          failure = error;
          trace.push(textEvent('error', error.detail ?? 'opencode reported an error', at));
          return;
        }
        default:
          return;
      }
    },
    spent() {
      if (usage === undefined) return undefined;
      const total = { ...usage, totalTokens: (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0) };
      return cost > 0 ? { usage: total, costUsd: cost } : { usage: total };
    },
    finish({ exitCode, stderr }): AgentOutcome {
      // Text after the last step_finish (a stream cut short) still counts as the answer.
      if (stepTexts.length > 0) answer = stepTexts.join('\n\n');
      const outcome: AgentOutcome = { trace };
      if (answer !== undefined) outcome.answer = answer;
      if (usage !== undefined) {
        usage.totalTokens = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
        outcome.usage = usage;
      }
      // opencode reports 0 for a model it has no price of (every model at a base_url): the
      // provider prices the tokens with AgentV's table instead.
      if (cost > 0) outcome.costUsd = cost;
      if (failure === undefined && exitCode !== undefined && exitCode !== 0) {
        const line = lastLine(stderr);
        failure =
          line === undefined
            ? { kind: 'agent_error' }
            : { kind: classifyFailureText(line), detail: failureLine(line) };
      }
      if (failure !== undefined) outcome.failure = failure;
      if (notOffered.length > 0) outcome.warnings = [notOfferedWarning(notOffered, offered)];
      return outcome;
    },
  };
}

/**
 * One line naming the tools the model called that opencode did not offer: taken away by the
 * permission rules, or not offered to this model (GPT models get `apply_patch`, not `edit`).
 */
function notOfferedWarning(names: string[], offered: string | undefined): string {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  const list = [...counts].map(([name, n]) => (n > 1 ? `${name} ×${n}` : name)).join(', ');
  return (
    `opencode's model called ${names.length === 1 ? 'a tool' : `${names.length} tools`} opencode did not offer (${list})` +
    `${offered === undefined ? '' : `; offered: ${offered}`}; ` +
    'permission_mode, allowed_tools and denied_tools decide which tools opencode offers'
  );
}

/** A step's `tokens` (`input`, `output`, `reasoning`, `cache.read`, `cache.write`) as `TokenUsage`. */
function stepUsage(tokens: unknown): TokenUsage | undefined {
  if (!isRecord(tokens)) return undefined;
  const usage: TokenUsage = {};
  const count = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  const cache = isRecord(tokens.cache) ? tokens.cache : {};
  const fields: [string, unknown][] = [
    ['inputTokens', tokens.input],
    ['outputTokens', tokens.output],
    ['reasoningTokens', tokens.reasoning],
    ['cachedInputTokens', cache.read],
    ['cacheWriteTokens', cache.write],
  ];
  for (const [key, value] of fields) {
    const n = count(value);
    if (n !== undefined) usage[key] = n;
  }
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/**
 * The failure of an `error` event: an `APIError` by its HTTP status (401/403 refused
 * credentials, 404 an unknown model) or its message; a `ProviderModelNotFoundError` (a model
 * opencode's config does not list) is `model_not_found`.
 */
function readError(error: unknown): AgentFailure {
  if (!isRecord(error)) return { kind: 'agent_error' };
  const name = typeof error.name === 'string' ? error.name : undefined;
  const data = isRecord(error.data) ? error.data : {};
  const message =
    typeof data.message === 'string'
      ? data.message
      : typeof error.message === 'string'
        ? error.message
        : name;
  const status = typeof data.statusCode === 'number' ? data.statusCode : undefined;
  const detail =
    message === undefined ? undefined : failureLine(status ? `${status} ${message}` : message);
  const kind =
    status === 401 || status === 403
      ? 'auth'
      : status === 404 || name?.includes('ModelNotFound')
        ? 'model_not_found'
        : classifyFailureText(`${name ?? ''} ${message ?? ''}`);
  return detail === undefined ? { kind } : { kind, detail };
}

function msDate(value: unknown): Date | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? new Date(value) : undefined;
}

function addUsage(total: TokenUsage | undefined, step: TokenUsage | undefined) {
  if (step === undefined) return total;
  const sum: TokenUsage = { ...total };
  for (const [key, count] of Object.entries(step)) sum[key] = (sum[key] ?? 0) + (count ?? 0);
  return sum;
}
