/**
 * A compact view of a trace, computed once per result (by `@agentv/results`)
 * and given to evaluators as `candidate_trace_summary`.
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

/** Computes a trace summary; injected into the orchestrator by the app. */
export type TraceSummarizer = (
  trace: readonly import('./trace-event.js').TraceEvent[],
) => TraceSummary;
