import { AgentvError, isAgentvError } from './agentv-error.js';
import { formatIssue, type Issue } from './input-issue.js';

/** Input files have errors; carries every issue found so they can all be reported at once. */
export class InvalidInputError extends AgentvError {
  override readonly kind = 'invalid-input';
  readonly issues: Issue[];

  constructor(issues: Issue[]) {
    const errors = issues.filter((issue) => issue.severity === 'error');
    const first = errors[0];
    const message = first
      ? errors.length === 1
        ? formatIssue({ ...first, hint: undefined })
        : `${errors.length} problems in input files; first: ${formatIssue({ ...first, hint: undefined })}`
      : 'invalid input';
    super(message, { hint: first?.hint });
    this.issues = issues;
  }
}

/** Whether `error` is an `InvalidInputError` from any installed copy of `@agentv/core`. */
export function isInvalidInputError(error: unknown): error is InvalidInputError {
  return isAgentvError(error, 'invalid-input');
}
