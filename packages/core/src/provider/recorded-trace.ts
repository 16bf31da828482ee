import type { ProviderResponse } from './provider-response.js';

/** The formats a case's `trace: { source, path }` may name. */
export const RECORDED_TRACE_SOURCES = ['codex-session', 'claude-session', 'otlp-file'] as const;

export type RecordedTraceSource = (typeof RECORDED_TRACE_SOURCES)[number];

/** A case's `trace:`: a session or trace file recorded outside AgentV that answers the case. */
export interface RecordedTraceRef {
  source: RecordedTraceSource;
  /** The file's absolute path, checked to be inside the project's file roots when loaded. */
  path: string;
  /** The path as written in the eval file, for messages. */
  written: string;
}

/**
 * Reads recorded sessions and trace files into the answer of a case (given by the app as
 * `RunEvaluationOptions.recordedTraces`; core knows no agent's format). Its `text` is the
 * session's final answer, its `trace` the session's events with their own times, its `usage`
 * from the session's token counts. Rejects with an `AgentvError` naming the file (and line)
 * when the file is missing, too large, or not of the format its `source` names.
 */
export interface RecordedTraceReader {
  read(ref: RecordedTraceRef): Promise<ProviderResponse>;
}
