/**
 * A compact view of a trace (see `summarizeTrace`), computed once per provider
 * call by the orchestrator and given to evaluators as `candidate_trace_summary`.
 */
export interface TraceSummary {
  eventCount: number;
  /** Distinct tool names, sorted. */
  toolNames: string[];
  /** Tool name to number of `tool_call` events. */
  toolCallsByName: Record<string, number>;
  /** Number of `error` events. */
  errorCount: number;
}
