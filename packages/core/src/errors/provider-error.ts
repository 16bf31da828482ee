import { AgentvError, type AgentvErrorOptions } from './agentv-error.js';

export interface ProviderErrorOptions extends AgentvErrorOptions {
  /** Whether another attempt may succeed (timeouts, non-zero exits, 429/5xx). Default true. */
  retryable?: boolean;
  exitCode?: number;
  /** A truncated excerpt of the agent's stderr. */
  stderr?: string;
  /** Diagnostics to keep on the result. */
  details?: Record<string, unknown>;
  /** How long the service asked to wait before the next attempt (`Retry-After`), in milliseconds. */
  retryAfterMs?: number;
}

/** A provider could not answer a case. Becomes that case's `error` after retries. */
export class ProviderError extends AgentvError {
  readonly retryable: boolean;
  readonly exitCode?: number;
  readonly stderr?: string;
  readonly details?: Record<string, unknown>;
  readonly retryAfterMs?: number;

  constructor(message: string, options: ProviderErrorOptions = {}) {
    super(message, options);
    this.retryable = options.retryable ?? true;
    this.exitCode = options.exitCode;
    this.stderr = options.stderr;
    this.details = options.details;
    this.retryAfterMs = options.retryAfterMs;
  }
}
