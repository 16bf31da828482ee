import type { ProviderContext } from './provider-factory.js';

/** The time limit of one agent call and what to change when a call runs into it. */
export interface CallTimeout {
  /** Seconds one call may take; undefined: no limit. */
  seconds: number | undefined;
  /** `--agent-timeout` set it (it wins over the target's `timeout_seconds`). */
  fromFlag: boolean;
  /**
   * What would give the next call more time, for a timeout error's hint. Names
   * only what changes the outcome: under `--agent-timeout` the target's
   * `timeout_seconds` is not read, so only the flag is named.
   */
  hint: string;
}

/**
 * The one rule every provider follows for its per-call timeout: `--agent-timeout`
 * (`context.defaultTimeoutSeconds`) wins over the target's `timeout_seconds`
 * (`targetSeconds`, i.e. `ResolvedTarget.timeoutSeconds`), as `--max-retries` and
 * `--workers` win over `max_retries` and `workers`.
 */
export function callTimeout(
  targetSeconds: number | undefined,
  context: Pick<ProviderContext, 'defaultTimeoutSeconds'>,
): CallTimeout {
  const flag = context.defaultTimeoutSeconds;
  if (flag !== undefined) {
    return {
      seconds: flag,
      fromFlag: true,
      hint: "raise --agent-timeout (it wins over the target's timeout_seconds)",
    };
  }
  return {
    seconds: targetSeconds,
    fromFlag: false,
    hint: 'raise timeout_seconds on the target (or pass --agent-timeout)',
  };
}
