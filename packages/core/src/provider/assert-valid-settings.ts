import type { Issue } from '../errors/input-issue.js';
import { InvalidInputError } from '../errors/invalid-input-error.js';
import type { ResolvedTarget } from './resolved-target.js';
import { targetSettingsIssue } from './target-settings-issue.js';

/**
 * What a provider's settings parser does before it reads `target`: given what its
 * own `validate` found (`issues`), throws an `InvalidInputError` holding every
 * error, each named after the target, its setting's path leading the message, and
 * located where `agentv validate` points: the targets file and the target's line
 * and column. Warnings do not stop a target; returns when there is no error.
 */
export function assertValidSettings(target: ResolvedTarget, issues: readonly Issue[]): void {
  const errors = issues.filter((issue) => issue.severity === 'error');
  if (errors.length === 0) return;
  const position =
    target.positions?.[''] ?? (target.line === undefined ? {} : { line: target.line });
  throw new InvalidInputError(
    errors.map((problem) => ({
      ...targetSettingsIssue(problem, target),
      file: target.filePath,
      ...position,
    })),
  );
}
