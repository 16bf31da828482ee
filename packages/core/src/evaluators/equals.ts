import type { Issue } from '../errors/input-issue.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import type { Evaluator } from './evaluator.js';
import {
  describe,
  excerpt,
  isCaseSensitive,
  optionIssue,
  throwIfInvalid,
  validateCaseSensitive,
} from './evaluator-options.js';
import { immediateEvaluator } from './immediate-evaluator.js';

/**
 * `equals`: the answer, trimmed, must equal `value`, trimmed. A number or
 * boolean `value` is compared as its text. `case_sensitive` defaults to true.
 * Score 1 or 0.
 */
export const equalsEvaluator: Evaluator = immediateEvaluator({
  type: 'equals',
  options: ['value', 'case_sensitive'],
  validate(config) {
    return [...validateValue(config.value), ...validateCaseSensitive(config)];
  },
  evaluateNow(config, context) {
    const expected = readValue(config).trim();
    const actual = context.candidateAnswer.trim();
    const equal = isCaseSensitive(config)
      ? actual === expected
      : actual.toLowerCase() === expected.toLowerCase();
    if (equal) return { score: 1, hits: [`Answer equals ${JSON.stringify(expected)}`], misses: [] };
    return {
      score: 0,
      hits: [],
      misses: [
        `Answer ${JSON.stringify(excerpt(actual))} does not equal ${JSON.stringify(excerpt(expected))}`,
      ],
    };
  },
});

function validateValue(value: unknown): Issue[] {
  if (value === undefined)
    return [optionIssue('value', '"value" is missing; give the text the answer must equal')];
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return [];
  }
  return [
    optionIssue('value', `"value" must be a string, number or boolean, got ${describe(value)}`),
  ];
}

function readValue(config: EvaluatorConfig): string {
  const problems = validateValue(config.value);
  throwIfInvalid(problems);
  return String(config.value);
}
