import type { ProviderResponse } from '../provider/provider-response.js';
import type { OutputMessage } from './output-message.js';
import type { TraceEvent } from './trace-event.js';

/**
 * The trace graders see for a response: its own `trace` when it has one, else
 * `tool_call` / `tool_result` events derived from the tool calls in
 * `outputMessages`, in order. Undefined when neither gives a trace.
 */
export function normalizeTrace(
  response: ProviderResponse,
  now = new Date(),
): TraceEvent[] | undefined {
  if (response.trace) return response.trace;
  if (!response.outputMessages) return undefined;
  const derived = deriveTraceFromOutputMessages(response.outputMessages, now);
  return derived.length > 0 ? derived : undefined;
}

/** Derives `tool_call` and `tool_result` events from output messages' tool calls. */
export function deriveTraceFromOutputMessages(
  messages: readonly OutputMessage[],
  now = new Date(),
): TraceEvent[] {
  const timestamp = now.toISOString();
  const events: TraceEvent[] = [];
  for (const message of messages) {
    for (const call of message.toolCalls ?? []) {
      const callEvent: TraceEvent = { type: 'tool_call', timestamp, name: call.tool };
      if (call.id !== undefined) callEvent.id = call.id;
      if (call.input !== undefined) callEvent.input = call.input;
      events.push(callEvent);
      if (call.output !== undefined) {
        const resultEvent: TraceEvent = {
          type: 'tool_result',
          timestamp,
          name: call.tool,
          output: call.output,
        };
        if (call.id !== undefined) resultEvent.id = call.id;
        events.push(resultEvent);
      }
    }
  }
  return events;
}
