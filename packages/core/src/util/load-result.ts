import type { InputIssue } from '../errors/input-issue.js';

/** A loader's outcome: the value when it could be built, and every problem found (errors and warnings). */
export interface LoadResult<T> {
  /** Set only when the input has no errors (warnings allowed). */
  value?: T;
  issues: InputIssue[];
}

/** True when any issue is an error (not just a warning). */
export function hasErrors(issues: readonly InputIssue[]): boolean {
  return issues.some((issue) => issue.severity === 'error');
}

/** Issues ordered by line and column (issues without a position first), ties kept in order. */
export function sortIssues(issues: readonly InputIssue[]): InputIssue[] {
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
