import type { OutputMessage } from '../trace/output-message.js';
import type { TraceEvent } from '../trace/trace-event.js';
import { parseTraceEvents } from '../trace/trace-schemas.js';
import type { ProviderResponse } from './provider-response.js';

/**
 * The trace graders, result files and trace dumps see for a response — the one
 * place traces are normalised:
 * - the response's own `trace`, validated: elements that are not valid trace
 *   events are dropped, the rest kept in order;
 * - else, when that leaves no event, `tool_call` / `tool_result` events derived
 *   from the tool calls in `outputMessages`, in order;
 * - else `[]` when the provider sent a trace with no valid event, and
 *   undefined when it sent neither a trace nor tool calls.
 */
export function normalizeTrace(response: ProviderResponse, now?: Date): TraceEvent[] | undefined {
  const own = response.trace === undefined ? undefined : parseTraceEvents(response.trace);
  if (own !== undefined && own.length > 0) return own;
  // Nothing is allocated for an answer without output messages, nor the clock read (a `Date`
  // per answer adds up in a batch).
  if (!response.outputMessages) return own;
  const derived = deriveTraceFromOutputMessages(response.outputMessages, now ?? new Date());
  return derived.length > 0 ? derived : own;
}

/**
 * Derives events from output messages' tool calls: a `tool_call` per call
 * (with its `id` and `input`), followed by a `tool_result` when the call has
 * an `output`. Every event gets the timestamp `now`.
 */
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
