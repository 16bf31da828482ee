/**
 * One problem found in the input: an eval, targets or config file, a target's
 * provider settings, or an evaluator's options. Checks that know only the
 * value they inspect (providers, evaluators) set `path`, the field path inside
 * it; the loader that read the file fills in `file`, `line` and `column`.
 */
export interface Issue {
  severity: 'error' | 'warning';
  message: string;
  /** How to fix it. */
  hint?: string;
  /**
   * The field the problem is about, relative to what was checked: a target's
   * setting (`['healthcheck', 'url']`) or an evaluator's option (`['script']`).
   */
  path?: (string | number)[];
  /** Path of the file, as given or discovered (`--target` for the flag). */
  file?: string;
  /** 1-based line, when known. */
  line?: number;
  /** 1-based column, when known. */
  column?: number;
  /** The eval case the problem is in. */
  caseId?: string;
  /** The target the problem is in. */
  target?: string;
}

/** Formats an issue as one line: `file:line:col: case "x": message (hint: ...)`. */
export function formatIssue(issue: Issue): string {
  let location = issue.file ?? '';
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

/** `path` as written in messages: `healthcheck.url`, `env.API_KEY`. */
export function formatIssuePath(path: readonly (string | number)[]): string {
  return path.map(String).join('.');
}

/** The messages of `issues` as one sentence, for an error raised while grading. */
export function joinIssueMessages(issues: readonly Issue[]): string {
  return issues.map((issue) => issue.message).join('; ');
}
