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
  /** True when the answer came from the provider's disk cache instead of a new call. */
  cached?: boolean;
  /** Diagnostics (command line, stderr, ...), never graded. */
  raw?: Record<string, unknown>;
  /**
   * Problems with the reply that did not stop it from being graded, such as
   * trace events dropped as invalid. The run reports the first reply with
   * warnings of each target (`onWarning`), so a user learns why a trace is short.
   */
  warnings?: string[];
  /**
   * The agent's raw event stream (one JSON value per line), secrets masked: coding-agent
   * providers set it; the app saves it beside the result file, per case and attempt.
   */
  transcript?: string;
}
