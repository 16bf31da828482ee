import { z } from 'zod';
import { once } from '../util/once.js';
import { isRecord } from '../util/records.js';
import type { OutputMessage, ToolCall } from './output-message.js';
import type { TraceEvent } from './trace-event.js';

function buildWireSchemas() {
  /** Wire schema of one trace event (the output contract in the README's "Targets"). */
  const traceEventSchema = z.object({
    type: z.enum(['model_step', 'tool_call', 'tool_result', 'message', 'error']),
    timestamp: z.iso.datetime({ offset: true, local: true }),
    id: z.string().optional(),
    name: z.string().optional(),
    // The agent's own tool name when `name` is canonical; `rawName` is the in-memory spelling.
    raw_name: z.string().optional(),
    rawName: z.string().optional(),
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

  return { traceEventSchema, toolCallWireSchema, outputMessageWireSchema };
}

/**
 * The wire schemas of trace events and output messages, made on first use: only a reply
 * that carries a trace or messages needs them.
 */
const wireSchemas = once(buildWireSchemas);

/**
 * Keeps the elements of `value` that are valid trace events and drops the rest
 * (the output contract in the README's "Targets"), describing each dropped one in `dropped` when given, e.g.
 * `trace event 2 (tool_call "search") left out: timestamp is missing`. Returns undefined
 * when `value` is not an array.
 */
export function parseTraceEvents(value: unknown, dropped?: string[]): TraceEvent[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const { traceEventSchema } = wireSchemas();
  const events: TraceEvent[] = [];
  for (let index = 0; index < value.length; index++) {
    const element = value[index];
    const parsed = traceEventSchema.safeParse(element);
    if (parsed.success) events.push(toTraceEvent(parsed.data));
    else dropped?.push(describeDroppedEvent(element, index, parsed.error.issues));
  }
  return events;
}

/** Names a dropped trace event and its first problem, in the words of the output contract. */
function describeDroppedEvent(
  element: unknown,
  index: number,
  issues: readonly { path: PropertyKey[]; code: string }[],
): string {
  const which = `trace event ${index + 1}`;
  if (!isRecord(element)) return `${which} left out: it is not an object`;
  const label = [element.type, element.name]
    .filter((part) => typeof part === 'string')
    .map((part, at) => (at === 0 ? part : JSON.stringify(part)))
    .join(' ');
  const issue = issues[0];
  const key = String(issue?.path[0] ?? '');
  const problem =
    key === ''
      ? 'it does not match the trace event shape'
      : element[key] === undefined
        ? `${key} is missing`
        : key === 'type'
          ? `type must be one of ${wireSchemas().traceEventSchema.shape.type.options.join(', ')}`
          : key === 'timestamp'
            ? 'timestamp is not an ISO 8601 date-time'
            : `${key} has the wrong type`;
  return `${which}${label === '' ? '' : ` (${label})`} left out: ${problem}`;
}

/**
 * Converts wire `output_messages` (snake_case `tool_calls`) to `OutputMessage[]`,
 * order kept. Messages that are not objects with a `role` are dropped; invalid
 * tool calls inside a message are dropped. Returns undefined when not an array.
 */
export function parseOutputMessages(value: unknown): OutputMessage[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const messages: OutputMessage[] = [];
  const { outputMessageWireSchema, toolCallWireSchema } = wireSchemas();
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

function toTraceEvent(
  parsed: z.infer<ReturnType<typeof wireSchemas>['traceEventSchema']>,
): TraceEvent {
  const { raw_name, rawName, ...rest } = parsed;
  const event = stripUndefined(rest) as TraceEvent;
  const own = rawName ?? raw_name;
  if (own !== undefined) event.rawName = own;
  return event;
}

function stripUndefined<T extends Record<string, unknown>>(value: T): T {
  for (const key of Object.keys(value)) {
    if (value[key] === undefined) delete value[key];
  }
  return value;
}
