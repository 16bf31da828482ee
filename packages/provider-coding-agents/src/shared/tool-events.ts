import type { CanonicalToolName, TraceEvent } from '@agentv/core/provider-utils';

/** An agent's tool-name table: its own names → canonical names. */
export type ToolNameTable = Readonly<Record<string, CanonicalToolName>>;

/** How an agent's tool names become canonical: its table, or a function for names it builds (MCP). */
export type ToolNaming = ToolNameTable | ((own: string) => string);

/** The canonical name of an agent's tool (its own name when the table has none) and its own name. */
export function toolNames(naming: ToolNaming, own: string): { name: string; rawName: string } {
  const name = typeof naming === 'function' ? naming(own) : naming[own];
  return { name: name ?? own, rawName: own };
}

/** A `tool_call` event of `own` (the agent's tool name), named canonically. */
export function toolCallEvent(
  table: ToolNaming,
  own: string,
  at: Date,
  id: string | undefined,
  input: unknown,
): TraceEvent {
  const event: TraceEvent = {
    type: 'tool_call',
    timestamp: at.toISOString(),
    ...toolNames(table, own),
  };
  if (id !== undefined) event.id = id;
  if (input !== undefined) event.input = input;
  return event;
}

/**
 * A `tool_result` event of `own`, named canonically; `startedAt` (the call's time) gives its
 * `metadata.duration_ms`, and `metadata` adds what else the agent reported (exit code, status).
 */
export function toolResultEvent(
  table: ToolNaming,
  own: string,
  at: Date,
  id: string | undefined,
  output: unknown,
  options: { startedAt?: Date; metadata?: Record<string, unknown> } = {},
): TraceEvent {
  const event: TraceEvent = {
    type: 'tool_result',
    timestamp: at.toISOString(),
    ...toolNames(table, own),
  };
  if (id !== undefined) event.id = id;
  if (output !== undefined) event.output = output;
  const metadata: Record<string, unknown> = { ...options.metadata };
  if (options.startedAt !== undefined) {
    metadata.duration_ms = Math.max(0, at.getTime() - options.startedAt.getTime());
  }
  if (Object.keys(metadata).length > 0) event.metadata = metadata;
  return event;
}

/** A `message` or `error` event at `at`. */
export function textEvent(type: 'message' | 'error', text: string, at: Date): TraceEvent {
  return { type, timestamp: at.toISOString(), text };
}
