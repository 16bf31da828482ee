import { AgentvError, isAgentvError } from './agentv-error.js';

/** The command line itself is wrong (bad flag value, no matching files). */
export class UsageError extends AgentvError {
  override readonly kind = 'usage';
}

/** Whether `error` is a `UsageError` from any installed copy of `@agentv/core`. */
export function isUsageError(error: unknown): error is UsageError {
  return isAgentvError(error, 'usage');
}
