import type { OutputMessage } from '../trace/output-message.js';
import type { TraceEvent } from '../trace/trace-event.js';

/** Token counts reported by a provider. */
export interface TokenUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  [key: string]: number | undefined;
}

/** A provider's answer to one eval case. */
export interface ProviderResponse {
  /** The candidate answer. */
  text: string;
  /** Validated trace events, when the provider reports them. */
  trace?: TraceEvent[];
  /** Messages the agent produced, with their tool calls. */
  outputMessages?: OutputMessage[];
  usage?: TokenUsage;
  costUsd?: number;
  durationMs?: number;
  /** Diagnostics (command line, stderr, ...), never graded. */
  raw?: Record<string, unknown>;
}
