import type { Issue } from '../errors/input-issue.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import { EvaluatorError } from './evaluator-error.js';

/** A problem with one option of an evaluator config, e.g. `optionIssue('value', '"value" is missing')`. */
export function optionIssue(option: string, message: string): Issue {
  return { severity: 'error', path: [option], message };
}

/** Throws `EvaluatorError` with every problem's message when there are any (for `evaluate`). */
export function throwIfInvalid(problems: readonly Issue[]): void {
  if (problems.length > 0) {
    throw new EvaluatorError(problems.map((problem) => problem.message).join('; '));
  }
}

/** Problems with `case_sensitive`: it must be a boolean when given. */
export function validateCaseSensitive(config: EvaluatorConfig): Issue[] {
  const value = config.case_sensitive;
  if (value === undefined || typeof value === 'boolean') return [];
  return [
    optionIssue('case_sensitive', `"case_sensitive" must be true or false, got ${describe(value)}`),
  ];
}

/** `case_sensitive`, default true. */
export function isCaseSensitive(config: EvaluatorConfig): boolean {
  return config.case_sensitive !== false;
}

/** A short description of a value for messages: its JSON, truncated. */
export function describe(value: unknown): string {
  const text = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Shortens text for hits and misses, on one line. */
export function excerpt(text: string, max = 80): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 3)}...` : oneLine;
}

/** The issue with a `timeout_seconds` option that is set but not a number of seconds > 0. */
export function timeoutSecondsIssue(value: unknown): Issue | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return undefined;
  return optionIssue(
    'timeout_seconds',
    `"timeout_seconds" must be a number of seconds > 0, got ${describe(value)}`,
  );
}
