/** The kinds of event an agent's trace can hold. */
export type TraceEventType = 'model_step' | 'tool_call' | 'tool_result' | 'message' | 'error';

/**
 * One step of what an agent did while answering. Providers return these in
 * `ProviderResponse.trace`; trace-based evaluators read them.
 */
export interface TraceEvent {
  type: TraceEventType;
  /** ISO 8601 time of the event. */
  timestamp: string;
  /** Correlates a `tool_call` with its `tool_result`. */
  id?: string;
  /** Tool name for `tool_call` / `tool_result`; model name for `model_step`. */
  name?: string;
  input?: unknown;
  output?: unknown;
  text?: string;
  metadata?: Record<string, unknown>;
}
