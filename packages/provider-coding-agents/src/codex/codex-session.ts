import { AgentvError } from '@agentv/core';
import { isRecord, type ProviderResponse, type TraceEvent } from '@agentv/core/provider-utils';
import { type SessionLine, sessionDuration, sessionLines } from '../shared/session-lines.js';
import { toolCallEvent, toolResultEvent } from '../shared/tool-events.js';
import { CODEX_TOOL_NAMES, createCodexReader } from './codex-reader.js';

/** Codex's shell tools in a rollout (by Codex version): each is a `command_execution`. */
const SHELL_CALLS = new Set([
  'shell',
  'exec_command',
  'container.exec',
  'local_shell',
  'shell_command',
]);

/**
 * A Codex session rollout (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`) as a case's answer.
 * Its `response_item` lines are what the model saw and did, in every Codex version: they are
 * turned into the `item.started` / `item.completed` events of `codex exec --json` and read by
 * the same reader, so tool names are canonical the same way (`function_call` of a shell tool and
 * `local_shell_call` → `command_execution` → `shell`; `apply_patch` → `file_change` →
 * `edit_file`/`write_file`; a `function_call_output` is its call's result; the last assistant
 * `message` is the answer; `reasoning` a `model_step`). Each event has its line's `timestamp`;
 * usage is the session's last `token_count` total.
 */
export function readCodexSession(text: string, shown: string): ProviderResponse {
  const { lines, warnings } = sessionLines(text, shown, 'Codex session rollout');
  if (!lines.some(({ value }) => value.type === 'session_meta' || value.type === 'response_item')) {
    throw new AgentvError(
      `${shown} is not a Codex session rollout: none of its ${lines.length} lines is a session_meta or response_item`,
      {
        hint: 'Codex writes its sessions to $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl (CODEX_HOME defaults to ~/.codex); for Claude Code write source: claude-session',
      },
    );
  }
  const reader = createCodexReader();
  // Tools `codex exec --json` has no item type for (a function of an MCP server, …), by their own name.
  const other: TraceEvent[] = [];
  const calls = new Map<string, Record<string, unknown>>();
  let lastAt = new Date(0);
  let total: unknown;
  for (const line of lines) {
    const at = line.at ?? lastAt;
    lastAt = at;
    const { value } = line;
    const payload = isRecord(value.payload) ? value.payload : undefined;
    if (payload === undefined) continue;
    if (value.type === 'event_msg') {
      if (payload.type === 'token_count' && isRecord(payload.info)) {
        total = payload.info.total_token_usage ?? total;
      } else if (payload.type === 'error' && typeof payload.message === 'string') {
        reader.push({ type: 'error', message: payload.message }, at);
      }
      continue;
    }
    if (value.type !== 'response_item') continue;
    for (const event of execEvents(payload, calls, line)) {
      const item = event.item as Record<string, unknown>;
      if (item.type !== 'other') reader.push(event, at);
      else if (event.type === 'item.started') {
        item.startedAt = at;
        other.push(
          toolCallEvent(CODEX_TOOL_NAMES, String(item.name), at, String(item.id), item.arguments),
        );
      } else {
        other.push(
          toolResultEvent(CODEX_TOOL_NAMES, String(item.name), at, String(item.id), item.result, {
            startedAt: item.startedAt instanceof Date ? item.startedAt : at,
          }),
        );
      }
    }
  }
  if (total !== undefined) reader.push({ type: 'turn.completed', usage: total }, lastAt);
  const outcome = reader.finish({ stderr: '' });
  const trace =
    other.length === 0
      ? outcome.trace
      : [...outcome.trace, ...other].sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  const response: ProviderResponse = { text: outcome.answer ?? '', trace };
  if (outcome.usage !== undefined) response.usage = outcome.usage;
  const duration = sessionDuration(lines);
  if (duration !== undefined) response.durationMs = duration;
  if (outcome.answer === undefined) warnings.push(`${shown} holds no final answer of the agent`);
  if (warnings.length > 0) response.warnings = warnings;
  return response;
}

/** The `codex exec --json` events one `response_item` stands for. */
function execEvents(
  item: Record<string, unknown>,
  calls: Map<string, Record<string, unknown>>,
  line: SessionLine,
): Record<string, unknown>[] {
  const id = typeof item.call_id === 'string' ? item.call_id : `line-${line.line}`;
  switch (item.type) {
    case 'message': {
      if (item.role !== 'assistant') return [];
      const text = messageText(item.content);
      return text === undefined
        ? []
        : [{ type: 'item.completed', item: { id, type: 'agent_message', text } }];
    }
    case 'reasoning': {
      const text = messageText(item.summary) ?? messageText(item.content);
      return text === undefined
        ? []
        : [{ type: 'item.completed', item: { id, type: 'reasoning', text } }];
    }
    case 'function_call':
    case 'custom_tool_call':
    case 'local_shell_call': {
      const tool = toolItem(item, id);
      calls.set(id, tool);
      return [{ type: 'item.started', item: tool }];
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const tool = calls.get(id) ?? { id, type: 'other', name: 'unknown' };
      calls.delete(id);
      const output = outputText(item.output);
      const done: Record<string, unknown> =
        tool.type === 'command_execution'
          ? { ...tool, aggregated_output: output, status: 'completed' }
          : tool.type === 'file_change'
            ? { ...tool, status: 'completed' }
            : { ...tool, result: output, status: 'completed' };
      return [{ type: 'item.completed', item: done }];
    }
    default:
      return [];
  }
}

/** A tool call of the rollout as the item `codex exec --json` reports for it. */
function toolItem(item: Record<string, unknown>, id: string): Record<string, unknown> {
  const name = typeof item.name === 'string' ? item.name : 'local_shell';
  const args = argumentsOf(item);
  if (item.type === 'local_shell_call' || SHELL_CALLS.has(name)) {
    const action = isRecord(item.action) ? item.action : undefined;
    return {
      id,
      type: 'command_execution',
      command: commandOf(args.cmd ?? args.command ?? action?.command),
    };
  }
  if (name === 'apply_patch') {
    const patch =
      typeof item.input === 'string' ? item.input : String(args.input ?? args.patch ?? '');
    return { id, type: 'file_change', changes: patchChanges(patch) };
  }
  // Another tool (an MCP server's, a web search): its own name and arguments.
  return { id, type: 'other', name, arguments: args };
}

function argumentsOf(item: Record<string, unknown>): Record<string, unknown> {
  const raw = item.arguments ?? item.input;
  if (typeof raw !== 'string') return isRecord(raw) ? raw : {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return isRecord(parsed) ? parsed : { input: raw };
  } catch {
    return { input: raw };
  }
}

function commandOf(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join(' ');
  return typeof value === 'string' ? value : '';
}

/** The files an `apply_patch` envelope names, as `file_change` changes (`add`, `delete`, `update`). */
function patchChanges(patch: string): { path: string; kind: string }[] {
  const changes: { path: string; kind: string }[] = [];
  for (const match of patch.matchAll(/^\*\*\* (Add|Delete|Update) File: (.+)$/gm)) {
    changes.push({ path: match[2]!.trim(), kind: match[1]!.toLowerCase() });
  }
  return changes;
}

function messageText(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const parts = content
    .filter(isRecord)
    .map((part) => part.text)
    .filter((text): text is string => typeof text === 'string' && text !== '');
  return parts.length === 0 ? undefined : parts.join('\n');
}

function outputText(output: unknown): unknown {
  if (typeof output === 'string') return output;
  if (isRecord(output) && typeof output.output === 'string') return output.output;
  return output;
}
