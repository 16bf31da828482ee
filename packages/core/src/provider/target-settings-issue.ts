import { formatIssuePath, type Issue } from '../errors/input-issue.js';
import type { ResolvedTarget } from './resolved-target.js';

/**
 * A provider's issue about a target's settings, as reported: named after the
 * target, the setting's path leading the message (`cwd: directory ... does not exist`).
 */
export function targetSettingsIssue(problem: Issue, target: ResolvedTarget): Issue {
  const path = problem.path ?? [];
  return {
    ...problem,
    target: target.name,
    message: path.length > 0 ? `${formatIssuePath(path)}: ${problem.message}` : problem.message,
  };
}
