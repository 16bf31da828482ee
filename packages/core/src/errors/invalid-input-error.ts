import { AgentvError } from './agentv-error.js';
import { formatInputIssue, type InputIssue } from './input-issue.js';

/** Input files have errors; carries every issue found so they can all be reported at once. */
export class InvalidInputError extends AgentvError {
  readonly issues: InputIssue[];

  constructor(issues: InputIssue[]) {
    const errors = issues.filter((issue) => issue.severity === 'error');
    const first = errors[0];
    const message = first
      ? errors.length === 1
        ? formatInputIssue({ ...first, hint: undefined })
        : `${errors.length} problems in input files; first: ${formatInputIssue({ ...first, hint: undefined })}`
      : 'invalid input';
    super(message, { hint: first?.hint });
    this.issues = issues;
  }
}
