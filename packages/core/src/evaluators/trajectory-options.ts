import type { Issue } from '../errors/input-issue.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import { isRecord } from '../util/records.js';
import { type CallPattern, parseCallPattern } from './call-pattern.js';
import { describe, optionIssue } from './evaluator-options.js';

export type TrajectoryMode = 'any_order' | 'in_order' | 'exact';

/** The checks of a `tool_trajectory` config; a sequence check (`mode`) and limits, each optional. */
export interface TrajectoryOptions {
  mode?: TrajectoryMode;
  /** `any_order`: tool to least number of calls. */
  minimums?: Record<string, number>;
  /** `in_order` / `exact`: the expected calls. */
  expected?: CallPattern[];
  forbidden?: CallPattern[];
  minCalls?: Record<string, number>;
  maxCalls?: Record<string, number>;
  maxSteps?: number;
  maxToolErrors?: number;
}

export const TRAJECTORY_OPTIONS = [
  'mode',
  'expected',
  'minimums',
  'forbidden',
  'min_calls',
  'max_calls',
  'max_steps',
  'max_tool_errors',
];

const MODES: TrajectoryMode[] = ['any_order', 'in_order', 'exact'];
const LIMITS = ['forbidden', 'min_calls', 'max_calls', 'max_steps', 'max_tool_errors'];

/** The options of `config`, or every problem with them. */
export function parseTrajectoryOptions(config: EvaluatorConfig): {
  options?: TrajectoryOptions;
  problems: Issue[];
} {
  const problems: Issue[] = [];
  const options: TrajectoryOptions = {};
  const { mode } = config;
  const hasLimit = LIMITS.some((key) => config[key] !== undefined);
  if (mode !== undefined || !hasLimit) {
    if (typeof mode !== 'string' || !MODES.includes(mode as TrajectoryMode)) {
      const or = mode === undefined ? ` (or give a limit: ${LIMITS.join(', ')})` : '';
      problems.push(
        optionIssue(
          'mode',
          `"mode" must be one of ${MODES.join(', ')}, got ${describe(mode)}${or}`,
        ),
      );
    } else {
      options.mode = mode as TrajectoryMode;
      if (mode === 'any_order') {
        const minimums = readCounts(
          config.minimums,
          'minimums',
          problems,
          `mode any_order needs "minimums"`,
        );
        if (minimums !== undefined) options.minimums = minimums;
      } else {
        const expected = readPatterns(
          config.expected,
          'expected',
          problems,
          `mode ${mode} needs "expected"`,
        );
        if (expected !== undefined) options.expected = expected;
      }
    }
  } else if (config.expected !== undefined || config.minimums !== undefined) {
    problems.push(
      optionIssue(
        'mode',
        `"mode" is missing; "expected" and "minimums" are read by mode in_order/exact and any_order`,
      ),
    );
  }
  if (config.forbidden !== undefined) {
    const forbidden = readPatterns(config.forbidden, 'forbidden', problems);
    if (forbidden !== undefined) options.forbidden = forbidden;
  }
  const minCalls = readCounts(config.min_calls, 'min_calls', problems);
  if (minCalls !== undefined) options.minCalls = minCalls;
  const maxCalls = readCounts(config.max_calls, 'max_calls', problems);
  if (maxCalls !== undefined) options.maxCalls = maxCalls;
  const maxSteps = readCount(config.max_steps, 'max_steps', problems);
  if (maxSteps !== undefined) options.maxSteps = maxSteps;
  const maxToolErrors = readCount(config.max_tool_errors, 'max_tool_errors', problems);
  if (maxToolErrors !== undefined) options.maxToolErrors = maxToolErrors;
  return problems.length > 0 ? { problems } : { options, problems };
}

function readCount(value: unknown, key: string, problems: Issue[]): number | undefined {
  if (value === undefined) return undefined;
  if (Number.isInteger(value) && (value as number) >= 0) return value as number;
  problems.push(optionIssue(key, `"${key}" must be a whole number >= 0, got ${describe(value)}`));
  return undefined;
}

/** A map of tool name to a whole number; `required` is the message when it is missing. */
function readCounts(
  value: unknown,
  key: string,
  problems: Issue[],
  required?: string,
): Record<string, number> | undefined {
  const usage = `give "${key}" as a map of tool name to a number of calls, e.g. {search: 1}`;
  if (value === undefined) {
    if (required !== undefined) problems.push(optionIssue(key, `${required}; ${usage}`));
    return undefined;
  }
  if (!isRecord(value) || Object.keys(value).length === 0) {
    problems.push(optionIssue(key, `"${key}" must be a non-empty map; ${usage}`));
    return undefined;
  }
  let valid = true;
  for (const [tool, count] of Object.entries(value)) {
    if (Number.isInteger(count) && (count as number) >= 0) continue;
    valid = false;
    problems.push({
      severity: 'error',
      path: [key, tool],
      message: `"${key}.${tool}" must be a whole number >= 0, got ${describe(count)}`,
    });
  }
  return valid ? (value as Record<string, number>) : undefined;
}

function readPatterns(
  value: unknown,
  key: string,
  problems: Issue[],
  required?: string,
): CallPattern[] | undefined {
  const usage = `give "${key}" as a list of {tool, input?, input_pattern?}`;
  if (value === undefined) {
    if (required !== undefined) problems.push(optionIssue(key, `${required}; ${usage}`));
    return undefined;
  }
  if (!Array.isArray(value) || value.length === 0) {
    problems.push(optionIssue(key, `"${key}" must be a non-empty list; ${usage}`));
    return undefined;
  }
  const patterns: CallPattern[] = [];
  value.forEach((item, index) => {
    const parsed = parseCallPattern(item, `${key}[${index}]`, [key, index]);
    problems.push(...parsed.problems);
    if (parsed.pattern !== undefined) patterns.push(parsed.pattern);
  });
  return patterns.length === value.length ? patterns : undefined;
}
