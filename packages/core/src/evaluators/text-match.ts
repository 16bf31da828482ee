import type { Issue } from '../errors/input-issue.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import type { EvaluationScore, Evaluator } from './evaluator.js';
import {
  describe,
  isCaseSensitive,
  optionIssue,
  throwIfInvalid,
  validateCaseSensitive,
} from './evaluator-options.js';
import { immediateEvaluator } from './immediate-evaluator.js';

/** How a text check relates the answer to its values. */
interface TextMatch {
  type: string;
  /** `contains`: anywhere; `starts` / `ends`: at the start / end of the trimmed answer. */
  where: 'contains' | 'starts' | 'ends';
  /** `any`: one value must appear; `all`: each must; `one`: `value` is a single string. */
  need: 'one' | 'any' | 'all';
  /** Always case-insensitive (`icontains`...): no `case_sensitive` option. */
  ignoreCase?: boolean;
}

const PHRASES = { contains: 'contains', starts: 'starts with', ends: 'ends with' } as const;
const NEGATED = { contains: 'contain', starts: 'start with', ends: 'end with' } as const;

/**
 * An evaluator comparing the answer with `value` as `match` says: score 1 when
 * it holds, else 0; one hit or miss per value (`any`: one miss naming them all).
 */
export function textMatchEvaluator(match: TextMatch): Evaluator {
  return immediateEvaluator({
    type: match.type,
    options: match.ignoreCase ? ['value'] : ['value', 'case_sensitive'],
    validate: (config) => issues(match, config),
    evaluateNow(config, context) {
      throwIfInvalid(issues(match, config));
      const values = typeof config.value === 'string' ? [config.value] : (config.value as string[]);
      const caseSensitive = !match.ignoreCase && isCaseSensitive(config);
      const fold = (text: string) => (caseSensitive ? text : text.toLowerCase());
      const answer = fold(
        match.where === 'contains' ? context.candidateAnswer : context.candidateAnswer.trim(),
      );
      const phrase = PHRASES[match.where];
      const holds = (value: string) => {
        const needle = fold(match.where === 'contains' ? value : value.trim());
        if (match.where === 'starts') return answer.startsWith(needle);
        if (match.where === 'ends') return answer.endsWith(needle);
        return answer.includes(needle);
      };
      return match.need === 'any'
        ? gradeAny(values, holds, phrase)
        : gradeAll(values, holds, phrase, NEGATED[match.where]);
    },
  });
}

function gradeAll(
  values: string[],
  holds: (value: string) => boolean,
  phrase: string,
  negated: string,
): EvaluationScore {
  const hits: string[] = [];
  const misses: string[] = [];
  for (const value of values) {
    if (holds(value)) hits.push(`Answer ${phrase} ${JSON.stringify(value)}`);
    else misses.push(`Answer does not ${negated} ${JSON.stringify(value)}`);
  }
  return { score: misses.length === 0 ? 1 : 0, hits, misses };
}

function gradeAny(
  values: string[],
  holds: (value: string) => boolean,
  phrase: string,
): EvaluationScore {
  const found = values.find(holds);
  if (found !== undefined)
    return { score: 1, hits: [`Answer ${phrase} ${JSON.stringify(found)}`], misses: [] };
  return { score: 0, hits: [], misses: [`Answer ${phrase} none of ${JSON.stringify(values)}`] };
}

function issues(match: TextMatch, config: EvaluatorConfig): Issue[] {
  const problems = match.ignoreCase ? [] : validateCaseSensitive(config);
  const { value } = config;
  const usage =
    match.need === 'one'
      ? `give "value" as the text the answer ${PHRASES[match.where]}`
      : `give "value" as a list of strings (${match.need === 'any' ? 'one' : 'each'} must appear)`;
  if (value === undefined)
    return [optionIssue('value', `"value" is missing; ${usage}`), ...problems];
  if (typeof value === 'string') {
    if (value === '') return [optionIssue('value', `"value" is empty; ${usage}`), ...problems];
    return problems;
  }
  if (match.need !== 'one' && Array.isArray(value)) {
    if (value.length > 0 && value.every((item) => typeof item === 'string' && item !== ''))
      return problems;
    return [
      optionIssue(
        'value',
        `"value" must be a non-empty list of non-empty strings, got ${describe(value)}`,
      ),
      ...problems,
    ];
  }
  return [
    optionIssue(
      'value',
      `"value" must be ${match.need === 'one' ? 'a string' : 'a list of strings'}, got ${describe(value)}; ${usage}`,
    ),
    ...problems,
  ];
}

/** `icontains`, `contains_any`, `contains_all`, `icontains_any`, `icontains_all`, `starts_with`, `ends_with`. */
export const textMatchEvaluators: Evaluator[] = [
  textMatchEvaluator({ type: 'icontains', where: 'contains', need: 'all', ignoreCase: true }),
  textMatchEvaluator({ type: 'contains_any', where: 'contains', need: 'any' }),
  textMatchEvaluator({ type: 'contains_all', where: 'contains', need: 'all' }),
  textMatchEvaluator({ type: 'icontains_any', where: 'contains', need: 'any', ignoreCase: true }),
  textMatchEvaluator({ type: 'icontains_all', where: 'contains', need: 'all', ignoreCase: true }),
  textMatchEvaluator({ type: 'starts_with', where: 'starts', need: 'one' }),
  textMatchEvaluator({ type: 'ends_with', where: 'ends', need: 'one' }),
];
