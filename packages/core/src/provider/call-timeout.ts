import type { ProviderContext } from './provider-factory.js';

/** The time limit of one agent call and what to change when a call runs into it. */
export interface CallTimeout {
  /** Seconds one call may take; undefined: no limit. */
  seconds: number | undefined;
  /** `--agent-timeout` set it (it wins over the target's `timeout_seconds`). */
  fromFlag: boolean;
  /** The provider's default set it: neither `--agent-timeout` nor `timeout_seconds` was given. */
  fromDefault: boolean;
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
 * `--workers` win over `max_retries` and `workers`; without either, the
 * provider's own `providerDefaultSeconds` applies (the `cli` provider's 600),
 * else there is no limit.
 */
export function callTimeout(
  targetSeconds: number | undefined,
  context: Pick<ProviderContext, 'defaultTimeoutSeconds'>,
  providerDefaultSeconds?: number,
): CallTimeout {
  const flag = context.defaultTimeoutSeconds;
  if (flag !== undefined) {
    return {
      seconds: flag,
      fromFlag: true,
      fromDefault: false,
      hint: "raise --agent-timeout (it wins over the target's timeout_seconds)",
    };
  }
  if (targetSeconds === undefined && providerDefaultSeconds !== undefined) {
    return {
      seconds: providerDefaultSeconds,
      fromFlag: false,
      fromDefault: true,
      hint: `set timeout_seconds on the target (without it a call may take ${providerDefaultSeconds} s), or pass --agent-timeout`,
    };
  }
  return {
    seconds: targetSeconds,
    fromFlag: false,
    fromDefault: false,
    hint: 'raise timeout_seconds on the target (or pass --agent-timeout)',
  };
}

/**
 * A call's time limit and where it comes from, for `--verbose`:
 * `600 s (the provider's default; set timeout_seconds to change it)`, `5 s (--agent-timeout)`.
 */
export function describeCallTimeout(timeout: CallTimeout): string {
  if (timeout.seconds === undefined) return 'none (set timeout_seconds to limit each call)';
  if (timeout.fromFlag) return `${timeout.seconds} s (--agent-timeout)`;
  if (timeout.fromDefault) {
    return `${timeout.seconds} s (the provider's default; set timeout_seconds to change it)`;
  }
  return `${timeout.seconds} s (timeout_seconds)`;
}
