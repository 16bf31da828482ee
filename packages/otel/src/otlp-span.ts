/** One span as AgentV reads it, whatever the encoding it came in. */
export interface OtlpSpan {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits. */
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** Milliseconds since the epoch (fractional). */
  startMs: number;
  endMs: number;
  attributes: Record<string, unknown>;
  /** Attributes of the resource that sent the span (`service.name`, `agentv.case_id`, …). */
  resource: Record<string, unknown>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage?: string;
  events: OtlpSpanEvent[];
}

export interface OtlpSpanEvent {
  name: string;
  timeMs: number;
  attributes: Record<string, unknown>;
}

/** Status code of a span that failed. */
export const STATUS_ERROR = 2;
