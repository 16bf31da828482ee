import {
  type CanonicalToolName,
  isRecord,
  mcpToolName,
  parseTokenUsage,
  type TokenUsage,
  type TraceEvent,
} from '@agentv/core/provider-utils';
import type { AgentEventReader, AgentFailure, AgentOutcome } from '../shared/agent-adapter.js';
import { classifyFailureText } from '../shared/classify-failure.js';
import { textEvent, toolCallEvent, toolResultEvent } from '../shared/tool-events.js';

/**
 * Codex's item types → canonical tool names. A `file_change` that only adds files is
 * `write_file`; an MCP call is `mcp:<server>/<tool>`.
 */
export const CODEX_TOOL_NAMES: Record<string, CanonicalToolName> = {
  command_execution: 'shell',
  file_change: 'edit_file',
  todo_list: 'todo',
};

const TOOL_ITEMS = new Set([
  'command_execution',
  'file_change',
  'mcp_tool_call',
  'web_search',
  'todo_list',
]);

/**
 * Reads `codex exec --json` (one event per line): `item.started` / `item.completed` of
 * `command_execution`, `file_change`, `mcp_tool_call`, `web_search` and `todo_list` become
 * `tool_call` / `tool_result` pairs (the result's `metadata.duration_ms` from the two times),
 * `agent_message` the answer (the last one), `reasoning` a `model_step`, an `error` item or
 * event an `error` event; `turn.completed` adds its `usage`; `turn.failed` is the failure.
 */
export function createCodexReader(): AgentEventReader {
  const trace: TraceEvent[] = [];
  const started = new Map<string, Date>();
  let answer: string | undefined;
  let usage: TokenUsage | undefined;
  let failure: AgentFailure | undefined;
  let lastError: string | undefined;

  const toolName = (item: Record<string, unknown>): string => {
    const type = String(item.type);
    if (
      type === 'mcp_tool_call' &&
      typeof item.server === 'string' &&
      typeof item.tool === 'string'
    ) {
      return mcpToolName(item.server, item.tool);
    }
    return type;
  };
  const table = (item: Record<string, unknown>): Record<string, CanonicalToolName> =>
    item.type === 'file_change' && onlyAdds(item.changes)
      ? { ...CODEX_TOOL_NAMES, file_change: 'write_file' }
      : CODEX_TOOL_NAMES;

  const onToolStart = (item: Record<string, unknown>, id: string | undefined, at: Date) => {
    if (id !== undefined) {
      if (started.has(id)) return;
      started.set(id, at);
    }
    const own = toolName(item);
    const call = toolCallEvent(table(item), own, at, id, toolInput(item));
    // An MCP tool's canonical name is built, not looked up.
    if (own.startsWith('mcp:')) call.rawName = `${item.server}.${item.tool}`;
    trace.push(call);
  };

  return {
    push(event, receivedAt) {
      if (!isRecord(event)) return;
      const item = isRecord(event.item) ? event.item : undefined;
      const id = typeof item?.id === 'string' ? item.id : undefined;
      switch (event.type) {
        case 'item.started':
          if (item && TOOL_ITEMS.has(String(item.type))) onToolStart(item, id, receivedAt);
          return;
        case 'item.completed': {
          if (!item) return;
          const type = String(item.type);
          if (TOOL_ITEMS.has(type)) {
            const startedAt = id === undefined ? undefined : started.get(id);
            if (startedAt === undefined) onToolStart(item, id, receivedAt);
            const own = toolName(item);
            const result = toolResultEvent(table(item), own, receivedAt, id, toolOutput(item), {
              startedAt: startedAt ?? receivedAt,
              metadata: toolMetadata(item),
            });
            if (own.startsWith('mcp:')) result.rawName = `${item.server}.${item.tool}`;
            trace.push(result);
          } else if (type === 'agent_message' && typeof item.text === 'string') {
            answer = item.text;
            trace.push(textEvent('message', item.text, receivedAt));
          } else if (type === 'reasoning' && typeof item.text === 'string') {
            trace.push({
              type: 'model_step',
              timestamp: receivedAt.toISOString(),
              text: item.text,
            });
          } else if (type === 'error' && typeof item.message === 'string') {
            trace.push(textEvent('error', item.message, receivedAt));
          }
          return;
        }
        case 'turn.completed': {
          const turn = parseTokenUsage(event.usage);
          if (turn !== undefined) usage = addUsage(usage, turn);
          return;
        }
        case 'turn.failed': {
          const message =
            isRecord(event.error) && typeof event.error.message === 'string'
              ? event.error.message
              : (lastError ?? 'the turn failed');
          failure = { kind: classifyFailureText(message), detail: oneLine(message) };
          trace.push(textEvent('error', message, receivedAt));
          return;
        }
        case 'error':
          if (typeof event.message === 'string') {
            lastError = event.message;
            trace.push(textEvent('error', event.message, receivedAt));
          }
          return;
        default:
          return;
      }
    },
    finish({ exitCode, stderr }): AgentOutcome {
      const outcome: AgentOutcome = { trace };
      if (answer !== undefined) outcome.answer = answer;
      if (usage !== undefined) outcome.usage = usage;
      if (failure === undefined && exitCode !== undefined && exitCode !== 0) {
        const message = lastError ?? lastLine(stderr);
        if (message !== undefined)
          failure = { kind: classifyFailureText(message), detail: oneLine(message) };
        else failure = { kind: 'agent_error' };
      }
      if (failure !== undefined) outcome.failure = failure;
      return outcome;
    },
  };
}

function toolInput(item: Record<string, unknown>): unknown {
  switch (item.type) {
    case 'command_execution':
      return { command: item.command };
    case 'file_change':
      return { changes: item.changes };
    case 'mcp_tool_call':
      return item.arguments;
    case 'web_search':
      return { query: item.query };
    case 'todo_list':
      return { items: item.items };
    default:
      return undefined;
  }
}

function toolOutput(item: Record<string, unknown>): unknown {
  switch (item.type) {
    case 'command_execution':
      return item.aggregated_output;
    case 'mcp_tool_call':
      return item.result ?? item.error;
    case 'file_change':
      return item.status;
    default:
      return undefined;
  }
}

function toolMetadata(item: Record<string, unknown>): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  if (typeof item.status === 'string') metadata.status = item.status;
  if (typeof item.exit_code === 'number') metadata.exit_code = item.exit_code;
  return metadata;
}

function onlyAdds(changes: unknown): boolean {
  return (
    Array.isArray(changes) &&
    changes.length > 0 &&
    changes.every((change) => isRecord(change) && change.kind === 'add')
  );
}

function addUsage(total: TokenUsage | undefined, turn: TokenUsage): TokenUsage {
  const sum: TokenUsage = { ...total };
  for (const [key, count] of Object.entries(turn)) {
    if (count !== undefined) sum[key] = (sum[key] ?? 0) + count;
  }
  sum.totalTokens = (sum.inputTokens ?? 0) + (sum.outputTokens ?? 0);
  return sum;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

function lastLine(text: string): string | undefined {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return lines.at(-1);
}
