import type { ResolvedTarget } from '../provider/resolved-target.js';
import {
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  type WithRetriesOptions,
} from '../retry/retry-policy.js';
import { retryWaitLine } from '../retry/retry-wait-line.js';
import type { RunEvaluationOptions } from './run-options.js';

/** The retry policy for a target: `--max-retries`, else its `max_retries`, else the default. */
export function retryPolicyFor(target: ResolvedTarget, options: RunEvaluationOptions): RetryPolicy {
  return {
    ...DEFAULT_RETRY_POLICY,
    ...options.retryPolicy,
    maxRetries: options.maxRetries ?? target.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
  };
}

/** Where `--verbose` lines go (the providers' `log`, else stderr); undefined without `--verbose`. */
export function verboseLog(options: RunEvaluationOptions): ((line: string) => void) | undefined {
  const context = options.providerContext;
  if (context?.verbose !== true) return undefined;
  return context.log ?? ((line: string) => process.stderr.write(`${line}\n`));
}

/** `onWait` for `withRetries` that writes `retryWaitLine`s under `--verbose`, else undefined. */
export function verboseRetryWaits(
  options: RunEvaluationOptions,
  providerId: string,
  label: (failedAttempt: number) => string,
): WithRetriesOptions['onWait'] {
  const log = verboseLog(options);
  if (log === undefined) return undefined;
  return (wait) => log(retryWaitLine(providerId, label(wait.failed), wait));
}
