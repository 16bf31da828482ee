import type { Issue } from '../errors/input-issue.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import type { Evaluator } from './evaluator.js';
import {
  describe,
  isCaseSensitive,
  optionIssue,
  throwIfInvalid,
  validateCaseSensitive,
} from './evaluator-options.js';
import { immediateEvaluator } from './immediate-evaluator.js';

/**
 * `contains`: the answer must contain `value` (a string, or a list of strings
 * that must all appear). `case_sensitive` defaults to true. Score 1 when every
 * value appears, else 0; one hit or miss per value.
 */
export const containsEvaluator: Evaluator = immediateEvaluator({
  type: 'contains',
  options: ['value', 'case_sensitive'],
  validate(config) {
    return [...validateValues(config.value), ...validateCaseSensitive(config)];
  },
  evaluateNow(config, context) {
    const values = readValues(config);
    const caseSensitive = isCaseSensitive(config);
    const answer = caseSensitive ? context.candidateAnswer : context.candidateAnswer.toLowerCase();
    const hits: string[] = [];
    const misses: string[] = [];
    for (const value of values) {
      const needle = caseSensitive ? value : value.toLowerCase();
      if (answer.includes(needle)) hits.push(`Answer contains ${JSON.stringify(value)}`);
      else misses.push(`Answer does not contain ${JSON.stringify(value)}`);
    }
    return { score: misses.length === 0 ? 1 : 0, hits, misses };
  },
});

function validateValues(value: unknown): Issue[] {
  const usage = 'give "value" as a string or a list of strings the answer must contain';
  if (value === undefined) return [optionIssue('value', `"value" is missing; ${usage}`)];
  if (typeof value === 'string')
    return value === '' ? [optionIssue('value', `"value" is empty; ${usage}`)] : [];
  if (Array.isArray(value)) {
    if (value.length === 0) return [optionIssue('value', `"value" is an empty list; ${usage}`)];
    if (value.every((item) => typeof item === 'string' && item !== '')) return [];
    return [
      optionIssue('value', `"value" must list only non-empty strings, got ${describe(value)}`),
    ];
  }
  return [
    optionIssue('value', `"value" must be a string or a list of strings, got ${describe(value)}`),
  ];
}

function readValues(config: EvaluatorConfig): string[] {
  const problems = validateValues(config.value);
  throwIfInvalid(problems);
  return typeof config.value === 'string' ? [config.value] : (config.value as string[]);
}
