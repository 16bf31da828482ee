import type { TraceEvent } from '../trace/trace-event.js';
import type { TokenUsage } from './provider-response.js';

/**
 * What a call of a target with `trace: { source: otlp }` carries so that the agent's
 * OpenTelemetry spans come back to AgentV: the `cli` provider adds `env` to the
 * command's environment, the `http` provider sends `traceparent` as a request header.
 */
export interface TraceContext {
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_PROTOCOL`, `TRACEPARENT`, `OTEL_RESOURCE_ATTRIBUTES`. */
  readonly env: Readonly<Record<string, string>>;
  /** The W3C `traceparent` of the call: `00-<trace id>-<span id>-01`. */
  readonly traceparent: string;
}

/** What the spans of one call became. */
export interface CollectedTrace {
  /** Trace events with the spans' own start and end times, in time order. */
  trace: TraceEvent[];
  /** Token usage summed over the model-call spans; absent when no span reported any. */
  usage?: TokenUsage;
  /** Spans received for the call. */
  spanCount: number;
}

/** One call's share of the receiver: its trace id, and the spans that came for it. */
export interface TraceIntakeCall {
  readonly context: TraceContext;
  /**
   * Waits `graceMs` for batches the agent sent just before it exited, then stops
   * accepting spans for the call and returns what came. Never rejects.
   */
  finish(graceMs: number): Promise<CollectedTrace>;
}

/**
 * An OTLP receiver for a run (`@agentv/otel`'s, given by the app as
 * `RunEvaluationOptions.traceIntake`). `runEvaluation` starts it before the
 * first case when a planned target says `trace: { source: otlp }` and closes it
 * when the run ends.
 */
export interface TraceIntake {
  /**
   * Starts listening on 127.0.0.1, on `port` when given (else a free port); rejects with an
   * `AgentvError` when it cannot (the port is taken).
   */
  start(options?: { port?: number }): Promise<void>;
  /** A new trace id for one provider call of a case. */
  openCall(call: { evalCaseId: string; attempt: number; target: string }): TraceIntakeCall;
  /** Stops listening. Never rejects. */
  close(): Promise<void>;
}
