import type { Issue } from '../errors/input-issue.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import type { Evaluator } from './evaluator.js';
import { describe, excerpt, optionIssue, throwIfInvalid } from './evaluator-options.js';
import { immediateEvaluator } from './immediate-evaluator.js';

/** promptfoo's default most edits. */
const DEFAULT_THRESHOLD = 5;

/**
 * `levenshtein` (promptfoo's): the trimmed answer must be within `threshold`
 * (default 5) single-character insertions, deletions or substitutions of
 * `value`, trimmed. Score 1 or 0, with the distance.
 */
export const levenshteinEvaluator: Evaluator = immediateEvaluator({
  type: 'levenshtein',
  options: ['value', 'threshold'],
  validate: levenshteinIssues,
  evaluateNow(config, context) {
    throwIfInvalid(levenshteinIssues(config));
    const expected = String(config.value).trim();
    const threshold = (config.threshold as number | undefined) ?? DEFAULT_THRESHOLD;
    const distance = levenshteinDistance(context.candidateAnswer.trim(), expected);
    const text = `Edit distance ${distance} to ${JSON.stringify(excerpt(expected))}`;
    return distance <= threshold
      ? { score: 1, hits: [`${text} <= ${threshold} (threshold)`], misses: [] }
      : { score: 0, hits: [], misses: [`${text} > ${threshold} (threshold)`] };
  },
});

function levenshteinIssues(config: EvaluatorConfig): Issue[] {
  const issues: Issue[] = [];
  const { value, threshold } = config;
  if (typeof value !== 'string' && typeof value !== 'number') {
    issues.push(
      optionIssue(
        'value',
        `"value" must be the text the answer should be close to, got ${describe(value)}`,
      ),
    );
  }
  if (threshold !== undefined && !(Number.isInteger(threshold) && (threshold as number) >= 0)) {
    issues.push(
      optionIssue(
        'threshold',
        `"threshold" must be the most edits allowed, a whole number >= 0, got ${describe(threshold)}`,
      ),
    );
  }
  return issues;
}

/** The Levenshtein distance between `a` and `b` (UTF-16 code units). */
export function levenshteinDistance(a: string, b: string): number {
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}
