import type { Issue } from '../errors/input-issue.js';

/** A loader's outcome: the value when it could be built, and every problem found (errors and warnings). */
export interface LoadResult<T> {
  /** Set only when the input has no errors (warnings allowed). */
  value?: T;
  issues: Issue[];
}

/** True when any issue is an error (not just a warning). */
export function hasErrors(issues: readonly Issue[]): boolean {
  return issues.some((issue) => issue.severity === 'error');
}

/** Issues ordered by line and column (issues without a position first), ties kept in order. */
export function sortIssues(issues: readonly Issue[]): Issue[] {
  return issues
    .map((issue, order) => ({ issue, order }))
    .sort(
      (a, b) =>
        (a.issue.line ?? 0) - (b.issue.line ?? 0) ||
        (a.issue.column ?? 0) - (b.issue.column ?? 0) ||
        a.order - b.order,
    )
    .map(({ issue }) => issue);
}

/** Each issue once: the same problem at the same place (found twice, e.g. via two eval files) is kept first. */
export function uniqueIssues(issues: readonly Issue[]): Issue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = [
      issue.file,
      issue.line,
      issue.column,
      issue.caseId,
      issue.target,
      issue.message,
    ].join('\0');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
