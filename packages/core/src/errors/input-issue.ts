/** One problem found in an input file (eval, targets or config). */
export interface InputIssue {
  severity: 'error' | 'warning';
  /** Path of the file, as given or discovered. */
  file: string;
  /** 1-based line, when known. */
  line?: number;
  /** 1-based column, when known. */
  column?: number;
  /** The eval case the problem is in. */
  caseId?: string;
  /** The target the problem is in. */
  target?: string;
  message: string;
  hint?: string;
}

/** Formats an issue as one line: `file:line:col: case "x": message (hint: ...)`. */
export function formatInputIssue(issue: InputIssue): string {
  let location = issue.file;
  if (issue.line !== undefined) {
    location += `:${issue.line}`;
    if (issue.column !== undefined) location += `:${issue.column}`;
  }
  const subject = issue.caseId
    ? ` case "${issue.caseId}":`
    : issue.target
      ? ` target "${issue.target}":`
      : '';
  const hint = issue.hint ? ` (hint: ${issue.hint})` : '';
  return `${location}:${subject} ${issue.message}${hint}`;
}
