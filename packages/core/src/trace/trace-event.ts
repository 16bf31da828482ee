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
  /**
   * Tool name for `tool_call` / `tool_result` (the canonical name when the provider maps its
   * agent's tools: `shell`, `read_file`, …); model name for `model_step`.
   */
  name?: string;
  /**
   * The agent's own tool name when `name` is a canonical one it was mapped to (Codex's
   * `command_execution`, Claude Code's `Bash`). Written `raw_name` in result lines and dumps.
   */
  rawName?: string;
  input?: unknown;
  output?: unknown;
  text?: string;
  metadata?: Record<string, unknown>;
}

/** A trace event as written in result lines, trace dumps and grader payloads (`raw_name`). */
export type TraceEventRecord = Omit<TraceEvent, 'rawName'> & { raw_name?: string };

/** The wire form of an event: `rawName` becomes `raw_name`; events without one are returned as they are. */
export function traceEventRecord(event: TraceEvent): TraceEventRecord {
  if (event.rawName === undefined) return event;
  const { rawName, ...rest } = event;
  return { ...rest, raw_name: rawName };
}

/** The wire form of a trace (see `traceEventRecord`); the same array when no event has a `rawName`. */
export function traceRecords(trace: readonly TraceEvent[]): TraceEventRecord[] {
  return trace.some((event) => event.rawName !== undefined)
    ? trace.map(traceEventRecord)
    : (trace as TraceEventRecord[]);
}

/** An event read back from a result line or dump: `raw_name` becomes `rawName`. */
export function fromTraceEventRecord(record: TraceEventRecord): TraceEvent {
  if (record.raw_name === undefined) return record;
  const { raw_name, ...rest } = record;
  return { ...rest, rawName: raw_name };
}
