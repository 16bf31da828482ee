import { z } from 'zod';
import { isRecord } from '../util/records.js';
import type { OutputMessage, ToolCall } from './output-message.js';
import type { TraceEvent } from './trace-event.js';

/** Wire schema of one trace event (SPEC 4.1). */
export const traceEventSchema = z.object({
  type: z.enum(['model_step', 'tool_call', 'tool_result', 'message', 'error']),
  timestamp: z.iso.datetime({ offset: true, local: true }),
  id: z.string().optional(),
  name: z.string().optional(),
  input: z.unknown().optional(),
  output: z.unknown().optional(),
  text: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

const toolCallWireSchema = z.object({
  tool: z.string().min(1),
  input: z.unknown().optional(),
  output: z.unknown().optional(),
  id: z.string().optional(),
});

const outputMessageWireSchema = z.object({
  role: z.string().min(1),
  name: z.string().optional(),
  content: z.unknown().optional(),
  tool_calls: z.array(toolCallWireSchema).optional(),
  toolCalls: z.array(toolCallWireSchema).optional(),
});

/**
 * Keeps the elements of `value` that are valid trace events and drops the rest.
 * Returns undefined when `value` is not an array.
 */
export function parseTraceEvents(value: unknown): TraceEvent[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const events: TraceEvent[] = [];
  for (const element of value) {
    const parsed = traceEventSchema.safeParse(element);
    if (parsed.success) events.push(stripUndefined(parsed.data) as TraceEvent);
  }
  return events;
}

/**
 * Converts wire `output_messages` (snake_case `tool_calls`) to `OutputMessage[]`,
 * order kept. Messages that are not objects with a `role` are dropped; invalid
 * tool calls inside a message are dropped. Returns undefined when not an array.
 */
export function parseOutputMessages(value: unknown): OutputMessage[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const messages: OutputMessage[] = [];
  for (const element of value) {
    if (!isRecord(element)) continue;
    const rawCalls = element.tool_calls ?? element.toolCalls;
    const parsed = outputMessageWireSchema.safeParse({
      ...element,
      tool_calls: undefined,
      toolCalls: undefined,
    });
    if (!parsed.success) continue;
    const message: OutputMessage = { role: parsed.data.role };
    if (parsed.data.name !== undefined) message.name = parsed.data.name;
    if (parsed.data.content !== undefined) message.content = parsed.data.content;
    if (Array.isArray(rawCalls)) {
      const toolCalls: ToolCall[] = [];
      for (const call of rawCalls) {
        const parsedCall = toolCallWireSchema.safeParse(call);
        if (parsedCall.success) toolCalls.push(stripUndefined(parsedCall.data) as ToolCall);
      }
      message.toolCalls = toolCalls;
    }
    messages.push(message);
  }
  return messages;
}

function stripUndefined<T extends Record<string, unknown>>(value: T): T {
  for (const key of Object.keys(value)) {
    if (value[key] === undefined) delete value[key];
  }
  return value;
}
