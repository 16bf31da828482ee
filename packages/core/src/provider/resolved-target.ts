/**
 * A target's `trace:` block: its spans arrive over OTLP; `graceMs` is the wait for late
 * batches, `port` the receiver's port on 127.0.0.1 (default: a free one).
 */
export interface TargetTraceSource {
  source: 'otlp';
  graceMs?: number;
  port?: number;
}

/**
 * A target after loading: `${{ VAR }}` values interpolated, camelCase keys
 * converted to snake_case. Common keys are lifted into typed fields; the full
 * snake_case object (including provider-specific keys) is in `settings`.
 */
export interface ResolvedTarget {
  name: string;
  /** The provider kind (`cli`, `mock`, ...). */
  provider: string;
  /** All keys of the target in snake_case, interpolated. */
  settings: Record<string, unknown>;
  workers?: number;
  maxRetries?: number;
  /** `requests_per_minute`: calls started per minute at most, spread evenly. */
  requestsPerMinute?: number;
  /** `tokens_per_minute`: tokens spent per minute at most (as the provider reports usage). */
  tokensPerMinute?: number;
  providerBatching?: boolean;
  batchSize?: number;
  timeoutSeconds?: number;
  /** `max_output_bytes` in bytes; read it with `maxOutputBytes(target)`, which applies the default. */
  maxOutputBytes?: number;
  judgeTarget?: string;
  /** `trace:`: where the call's trace comes from besides the provider's reply. */
  trace?: TargetTraceSource;
  /**
   * `${{ VAR }}` names that were unset when the file was loaded. Not an error
   * until a run uses this target.
   */
  missingVariables?: string[];
  /**
   * The values `${{ VAR }}` placeholders were replaced with. They often hold
   * API keys, so providers mask them in logs, errors and results.
   */
  secretValues?: string[];
  /** 1-based line of the target in its file. */
  line?: number;
  /**
   * Where the target and each of its settings are written (`targetPositions`), so
   * issues found when a run uses it point where `validate` points.
   */
  positions?: Record<string, { line: number; column: number }>;
  /** Absolute path of the targets file that defined it. */
  filePath: string;
  /** Directory relative paths in the target (`cwd`) resolve against. */
  baseDir: string;
}
