import { formatIssue, type Issue } from '../errors/input-issue.js';
import { InvalidInputError } from '../errors/invalid-input-error.js';
import { displayPath } from '../util/display-path.js';

/**
 * The last check before a run: hands each warning to `onWarning` (formatted, its file
 * relative to `cwd`), then throws `InvalidInputError` with every error, so the run never
 * starts. Issues come by file, then by position in it, as `agentv validate` lists them.
 */
export function reportIssues(
  issues: readonly Issue[],
  cwd: string,
  onWarning: ((message: string) => void) | undefined,
): void {
  const byFile = issues
    .map((issue, index) => ({ issue, index }))
    .sort(
      (a, b) =>
        (a.issue.file ?? '').localeCompare(b.issue.file ?? '') ||
        (a.issue.line ?? 0) - (b.issue.line ?? 0) ||
        (a.issue.column ?? 0) - (b.issue.column ?? 0) ||
        a.index - b.index,
    );
  const shown = byFile.map(({ issue }) =>
    issue.file === undefined ? issue : { ...issue, file: displayPath(cwd, issue.file) },
  );
  for (const warning of shown.filter((issue) => issue.severity === 'warning')) {
    onWarning?.(formatIssue(warning));
  }
  const errors = shown.filter((issue) => issue.severity === 'error');
  if (errors.length > 0) throw new InvalidInputError(errors);
}
