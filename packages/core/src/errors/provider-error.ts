import { AgentvError, type AgentvErrorOptions, isAgentvError } from './agentv-error.js';
import type { FailureClass } from './failure-class.js';

export interface ProviderErrorOptions extends AgentvErrorOptions {
  /** Whether another attempt may succeed (timeouts, non-zero exits, 429/5xx). Default true. */
  retryable?: boolean;
  exitCode?: number;
  /** A truncated excerpt of the agent's stderr. */
  stderr?: string;
  /** Diagnostics to keep on the result. */
  details?: Record<string, unknown>;
  /**
   * How long the service asked to be left alone before the next attempt, in ms
   * (e.g. from an HTTP `Retry-After` header). The retry waits at least this long
   * (capped at a minute) instead of its backoff.
   */
  retryAfterMs?: number;
  /** The agent's raw event stream up to the failure, secrets masked (see `ProviderResponse.transcript`). */
  transcript?: string;
  /**
   * The agent's trace events up to the failure, secrets masked: kept (the valid ones) on the
   * result of a case whose agent was stopped for crossing its budget.
   */
  trace?: readonly unknown[];
  /** Who the failure is on, when the provider knows (`classifyFailure` guesses otherwise). */
  failureClass?: 'agent' | 'infra' | 'timeout';
}

/** A provider could not answer a case. Becomes that case's `error` after retries. */
export class ProviderError extends AgentvError {
  override readonly kind = 'provider';
  readonly retryable: boolean;
  readonly exitCode?: number;
  readonly stderr?: string;
  readonly details?: Record<string, unknown>;
  readonly retryAfterMs?: number;
  readonly transcript?: string;
  readonly trace?: readonly unknown[];
  readonly failureClass?: FailureClass;

  constructor(message: string, options: ProviderErrorOptions = {}) {
    super(message, options);
    this.retryable = options.retryable ?? true;
    this.exitCode = options.exitCode;
    this.stderr = options.stderr;
    this.details = options.details;
    this.retryAfterMs = options.retryAfterMs;
    if (options.transcript !== undefined) this.transcript = options.transcript;
    if (options.trace !== undefined) this.trace = options.trace;
    if (options.failureClass !== undefined) this.failureClass = options.failureClass;
  }
}

/** Whether `error` is a `ProviderError` from any installed copy of `@agentv/core`. */
export function isProviderError(error: unknown): error is ProviderError {
  return isAgentvError(error, 'provider');
}
