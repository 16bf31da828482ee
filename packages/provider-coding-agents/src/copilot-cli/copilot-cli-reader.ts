import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isRecord, type TokenUsage, type TraceEvent } from '@agentv/core/provider-utils';
import type {
  AgentEventReader,
  AgentFailure,
  AgentFailureKind,
  AgentHome,
  AgentOutcome,
} from '../shared/agent-adapter.js';
import { classifyFailureText, failureLine, lastLine } from '../shared/classify-failure.js';
import { textEvent } from '../shared/tool-events.js';
import { canonicalCopilotToolName } from './copilot-tool-names.js';

type Json = Record<string, unknown>;

/** Where a call's Copilot CLI writes its token usage (`--usage-output-file`). */
export function copilotUsageFile(home: Pick<AgentHome, 'root'>): string {
  return path.join(home.root, 'copilot-usage.json');
}

/**
 * Reads `copilot --output-format json` (one event per line, each with `type`, `data` and its own
 * ISO `timestamp`): `assistant.turn_start` opens a model step; `assistant.message` is the model's
 * text (and the tool calls it asks for); `tool.execution_start` / `tool.execution_complete` are a
 * tool call and its result (`success`, `result.content` or `error.message`, a command's
 * `shellExecution.exitCode`), timed by Copilot; `session.error` is the failure (`statusCode`,
 * `errorType`); `result` ends the run. The answer is the text of the last message when it asks
 * for no tool. Copilot writes no token counts into the stream: they come from the call's usage
 * file (`copilotUsageFile`), read when the stream ends.
 */
export function createCopilotCliReader(call?: { home: Pick<AgentHome, 'root'> }): AgentEventReader {
  const trace: TraceEvent[] = [];
  const started = new Map<string, { name: string; rawName: string; at: Date }>();
  let answer: string | undefined;
  let failure: AgentFailure | undefined;

  const readToolStart = (data: Json, at: Date) => {
    const own = typeof data.toolName === 'string' ? data.toolName : 'unknown';
    const mcp =
      typeof data.mcpServerName === 'string' && typeof data.mcpToolName === 'string'
        ? { server: data.mcpServerName, tool: data.mcpToolName }
        : undefined;
    const name = canonicalCopilotToolName(own, data.arguments, mcp);
    const event: TraceEvent = {
      type: 'tool_call',
      timestamp: at.toISOString(),
      name,
      rawName: own,
    };
    const id = typeof data.toolCallId === 'string' ? data.toolCallId : undefined;
    if (id !== undefined) {
      event.id = id;
      started.set(id, { name, rawName: own, at });
    }
    if (data.arguments !== undefined) event.input = data.arguments;
    trace.push(event);
  };

  const readToolEnd = (data: Json, at: Date) => {
    const id = typeof data.toolCallId === 'string' ? data.toolCallId : undefined;
    const call = id === undefined ? undefined : started.get(id);
    const event: TraceEvent = {
      type: 'tool_result',
      timestamp: at.toISOString(),
      name: call?.name ?? 'unknown',
      rawName: call?.rawName ?? 'unknown',
    };
    if (id !== undefined) event.id = id;
    const result = isRecord(data.result) ? data.result : {};
    const error = isRecord(data.error) ? data.error : {};
    const output = data.success === false ? error.message : result.content;
    if (output !== undefined) event.output = output;
    const metadata: Json = { status: data.success === false ? 'error' : 'completed' };
    if (call !== undefined) metadata.duration_ms = Math.max(0, at.getTime() - call.at.getTime());
    const shell = isRecord(data.shellExecution) ? data.shellExecution : {};
    if (typeof shell.exitCode === 'number') metadata.exit_code = shell.exitCode;
    event.metadata = metadata;
    trace.push(event);
  };

  return {
    push(raw, receivedAt) {
      if (!isRecord(raw)) return;
      const at = isoDate(raw.timestamp) ?? receivedAt;
      const data = isRecord(raw.data) ? raw.data : {};
      switch (raw.type) {
        case 'assistant.turn_start': {
          const step: TraceEvent = { type: 'model_step', timestamp: at.toISOString() };
          if (typeof data.turnId === 'string') step.id = data.turnId;
          trace.push(step);
          return;
        }
        case 'assistant.message': {
          const text = typeof data.content === 'string' ? data.content : '';
          const asksForTools = Array.isArray(data.toolRequests) && data.toolRequests.length > 0;
          if (text !== '') trace.push(textEvent('message', text, at));
          answer = text !== '' && !asksForTools ? text : undefined;
          return;
        }
        case 'tool.execution_start':
          readToolStart(data, at);
          return;
        case 'tool.execution_complete':
          readToolEnd(data, at);
          return;
        case 'session.error': {
          failure = readError(data);
          trace.push(textEvent('error', failure.detail ?? 'Copilot CLI reported an error', at));
          return;
        }
        default:
          return;
      }
    },
    finish({ exitCode, stderr }): AgentOutcome {
      const outcome: AgentOutcome = { trace };
      if (answer !== undefined) outcome.answer = answer;
      const usage = call === undefined ? undefined : readUsageFile(copilotUsageFile(call.home));
      if (usage?.usage !== undefined) outcome.usage = usage.usage;
      if (usage?.model !== undefined) outcome.model = usage.model;
      if (failure === undefined && exitCode !== undefined && exitCode !== 0) {
        const line = lastLine(stderr);
        failure =
          line === undefined
            ? { kind: 'agent_error' }
            : { kind: classifyFailureText(line), detail: failureLine(line) };
      }
      if (failure !== undefined) outcome.failure = failure;
      return outcome;
    },
  };
}

/**
 * The failure of a `session.error`: refused credentials by its HTTP status (401/403) or
 * `errorType: authentication`, an unknown model by a 404, else by the words of its message (its
 * first line: the next ones tell the user to set Copilot's variables, which `api_key` sets).
 */
function readError(data: Json): AgentFailure {
  const message = typeof data.message === 'string' ? data.message.split('\n')[0] : undefined;
  const status = typeof data.statusCode === 'number' ? data.statusCode : undefined;
  let kind: AgentFailureKind;
  if (status === 401 || status === 403 || data.errorType === 'authentication') kind = 'auth';
  else if (status === 404) kind = 'model_not_found';
  else kind = classifyFailureText(message ?? '');
  return message === undefined ? { kind } : { kind, detail: failureLine(message) };
}

/**
 * The tokens of every model of a run, summed, and the model it used last, from Copilot's usage
 * file (`modelMetrics.<model>.usage`: `inputTokens`, `outputTokens`, `cacheReadTokens`,
 * `cacheWriteTokens`); undefined when the file is missing or unreadable (a run stopped early).
 * Copilot's own `cost` counts premium requests, not money: the price table gives the cost.
 */
export function readUsageFile(file: string): { usage?: TokenUsage; model?: string } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  const result: { usage?: TokenUsage; model?: string } = {};
  if (typeof parsed.currentModel === 'string') result.model = parsed.currentModel;
  const models = isRecord(parsed.modelMetrics) ? Object.values(parsed.modelMetrics) : [];
  const usage: TokenUsage = {};
  const fields: [string, string][] = [
    ['inputTokens', 'inputTokens'],
    ['outputTokens', 'outputTokens'],
    ['cacheReadTokens', 'cachedInputTokens'],
    ['cacheWriteTokens', 'cacheWriteTokens'],
  ];
  for (const metrics of models) {
    const counts = isRecord(metrics) && isRecord(metrics.usage) ? metrics.usage : {};
    for (const [from, to] of fields) {
      const n = counts[from];
      if (typeof n === 'number' && Number.isFinite(n)) usage[to] = (usage[to] ?? 0) + n;
    }
  }
  if (Object.keys(usage).length > 0) {
    usage.totalTokens = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
    result.usage = usage;
  }
  return result;
}

function isoDate(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : at;
}
