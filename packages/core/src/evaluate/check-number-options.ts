import { UsageError } from '../errors/usage-error.js';
import type { EvaluateOptions } from './evaluate-options.js';

/**
 * Throws `UsageError` for a numeric `evaluate()` option out of its range, the
 * way `agentv eval` refuses such a flag, before anything is loaded.
 */
export function checkNumberOptions(
  options: Pick<EvaluateOptions, 'workers' | 'maxRetries' | 'threshold'>,
): void {
  checkInteger('workers', options.workers, 1, "leave it out to use the targets' workers (else 4)");
  checkInteger(
    'maxRetries',
    options.maxRetries,
    0,
    "leave it out to use the targets' max_retries (else 2)",
  );
  const { threshold } = options;
  if (threshold === undefined || (Number.isFinite(threshold) && threshold >= 0 && threshold <= 1)) {
    return;
  }
  throw new UsageError(
    `evaluate() option threshold must be a number between 0 and 1, got ${String(threshold)}`,
    {
      hint: "a case passes when its score (0..1) reaches it; leave it out to use the eval files' threshold, else every evaluator must pass",
    },
  );
}

function checkInteger(
  name: string,
  value: number | undefined,
  minimum: number,
  hint: string,
): void {
  if (value === undefined || (Number.isInteger(value) && value >= minimum)) return;
  throw new UsageError(
    `evaluate() option ${name} must be an integer >= ${minimum}, got ${String(value)}`,
    { hint },
  );
}
