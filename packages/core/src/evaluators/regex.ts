import type { Issue } from '../errors/input-issue.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import type { Evaluator } from './evaluator.js';
import { EvaluatorError } from './evaluator-error.js';
import {
  describe,
  excerpt,
  isCaseSensitive,
  optionIssue,
  validateCaseSensitive,
} from './evaluator-options.js';
import { immediateEvaluator } from './immediate-evaluator.js';

/**
 * `regex`: the answer must match `pattern` (JavaScript syntax) with optional
 * `flags`; `case_sensitive: false` adds the `i` flag. Score 1 or 0.
 */
export const regexEvaluator: Evaluator = immediateEvaluator({
  type: 'regex',
  options: ['pattern', 'flags', 'case_sensitive'],
  validate(config) {
    const problems = validateCaseSensitive(config);
    const built = buildRegex(config);
    if (!(built instanceof RegExp)) problems.unshift(built);
    return problems;
  },
  evaluateNow(config, context) {
    const regex = buildRegex(config);
    if (!(regex instanceof RegExp)) throw new EvaluatorError(regex.message);
    const match = regex.exec(context.candidateAnswer);
    if (match) {
      return {
        score: 1,
        hits: [
          `Answer matches /${regex.source}/${regex.flags} at ${JSON.stringify(excerpt(match[0]))}`,
        ],
        misses: [],
      };
    }
    return {
      score: 0,
      hits: [],
      misses: [`Answer does not match /${regex.source}/${regex.flags}`],
    };
  },
});

/** The compiled pattern, or what is wrong with the options. */
function buildRegex(config: EvaluatorConfig): RegExp | Issue {
  const { pattern, flags } = config;
  if (pattern === undefined) {
    // `value` holds the expression in the `tests:` format (and upstream AgentV's assertions).
    return typeof config.value === 'string'
      ? optionIssue(
          'pattern',
          `"pattern" is missing; this grader takes its regular expression in "pattern", not "value": write pattern: ${JSON.stringify(config.value)}`,
        )
      : optionIssue(
          'pattern',
          '"pattern" is missing; give a regular expression the answer must match',
        );
  }
  if (typeof pattern !== 'string' || pattern === '') {
    return optionIssue('pattern', `"pattern" must be a non-empty string, got ${describe(pattern)}`);
  }
  if (flags !== undefined && typeof flags !== 'string') {
    return optionIssue(
      'flags',
      `"flags" must be a string of regular expression flags such as "im", got ${describe(flags)}`,
    );
  }
  let allFlags = flags ?? '';
  if (!isCaseSensitive(config) && !allFlags.includes('i')) allFlags += 'i';
  try {
    return new RegExp(pattern, allFlags);
  } catch (error) {
    return optionIssue(
      'pattern',
      `"pattern" ${JSON.stringify(pattern)} with flags "${allFlags}" is not a valid regular expression: ${(error as Error).message}`,
    );
  }
}
