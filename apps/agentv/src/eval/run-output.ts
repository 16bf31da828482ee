import path from 'node:path';
import { formatIssue, type Issue } from '@agentv/core';
import { displayPath } from '@agentv/core/internal';
import { InvalidInputError } from '@agentv/core/provider-utils';
import { terminalText } from '@agentv/results';

/** Prints warnings, and throws when any issue is an error so the run never starts. */
export function reportIssues(issues: Issue[], cwd: string): void {
  const shown = issues.map((issue) =>
    issue.file === undefined ? issue : { ...issue, file: displayPath(cwd, issue.file) },
  );
  for (const warning of shown.filter((issue) => issue.severity === 'warning')) {
    process.stderr.write(`warning: ${terminalText(formatIssue(warning))}\n`);
  }
  const errors = shown.filter((issue) => issue.severity === 'error');
  if (errors.length > 0) throw new InvalidInputError(errors);
}

/** `.agentv/results/<command>_<timestamp>.<extension>`, relative to cwd. */
export function defaultResultPath(extension: string, command = 'eval'): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return path.join('.agentv', 'results', `${command}_${stamp}.${extension}`);
}
