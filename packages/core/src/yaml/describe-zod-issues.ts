import type { z } from 'zod';
import type { Issue } from '../errors/input-issue.js';
import { valueAt } from '../util/records.js';
import { describeValue } from './parse-yaml-mapping.js';
import type { SourceLocator } from './yaml-source.js';

/** The subject an issue path belongs to and the path to show relative to it. */
export interface IssueScope {
  caseId?: string;
  target?: string;
  /** The path shown in the message, e.g. `input_messages[0].role`. */
  shownPath: readonly PropertyKey[];
}

/** What a loader tells the translator about its file. */
export interface DescribeIssuesContext {
  file: string;
  source: SourceLocator;
  /** The data that was validated, to describe what was found. */
  data: unknown;
  /** The case or target a path is in, and the part of the path to show (keys as the file spells them). */
  scope(path: readonly PropertyKey[]): IssueScope;
  /** How to fix a problem at `path`, keyed by the problem kind. */
  hint(path: readonly PropertyKey[], kind: ProblemKind): string | undefined;
  /** Quote offending values in messages (per path when a function); false where values may be secrets. */
  showValues: boolean | ((path: readonly PropertyKey[]) => boolean);
}

/** The kinds of problems the translator reports. */
export type ProblemKind = 'missing' | 'type' | 'value' | 'range' | 'other';

interface FlatIssue {
  code: string;
  path: PropertyKey[];
  expected?: string[];
  values?: unknown[];
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  inclusive?: boolean;
  message: string;
}

/**
 * Turns zod issues into one-line input issues with file, line, column, the
 * case or target, and a hint. Union failures are narrowed to the branch that
 * matches the value's shape.
 */
export function describeZodIssues(
  issues: readonly z.core.$ZodIssue[],
  context: DescribeIssuesContext,
): Issue[] {
  const flat = issues.flatMap((issue) => flatten(issue, []));
  return flat.map((issue) => toInputIssue(issue, context));
}

function flatten(issue: z.core.$ZodIssue, prefix: PropertyKey[]): FlatIssue[] {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'invalid_union') {
    const branches = issue.errors;
    const shaped = branches.filter((branch) => !branch.every(isRootTypeMismatch));
    if (shaped.length > 0) return shaped[0]!.flatMap((inner) => flatten(inner, path));
    const expected = branches.flatMap((branch) =>
      branch.flatMap((inner) => (inner.code === 'invalid_type' ? [inner.expected] : [])),
    );
    return [{ code: 'invalid_type', path, expected, message: issue.message }];
  }
  const flat: FlatIssue = { code: issue.code, path, message: issue.message };
  if (issue.code === 'invalid_type') flat.expected = [issue.expected];
  if (issue.code === 'invalid_value') flat.values = issue.values;
  if (issue.code === 'too_small') {
    flat.origin = issue.origin;
    flat.minimum = issue.minimum;
    flat.inclusive = issue.inclusive;
  }
  if (issue.code === 'too_big') {
    flat.origin = issue.origin;
    flat.maximum = issue.maximum;
    flat.inclusive = issue.inclusive;
  }
  return [flat];
}

function isRootTypeMismatch(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'invalid_type' && issue.path.length === 0;
}

function toInputIssue(issue: FlatIssue, context: DescribeIssuesContext): Issue {
  const found = valueAt(context.data, issue.path);
  const showValues =
    typeof context.showValues === 'function' ? context.showValues(issue.path) : context.showValues;
  const scope = context.scope(issue.path);
  const shown = formatPath(scope.shownPath);
  const subject = shown === '' ? 'the file' : shown;
  let kind: ProblemKind;
  let message: string;
  let position = context.source.locate(issue.path);
  if (issue.code === 'invalid_type' && found === undefined) {
    kind = 'missing';
    // As shown: a format may name the key otherwise than the data validated (see `scope`).
    const key = String(scope.shownPath.at(-1) ?? issue.path.at(-1));
    const parent = formatPath(scope.shownPath.slice(0, -1));
    message =
      parent === ''
        ? `missing required key "${key}"`
        : `${parent} is missing required key "${key}"`;
    position = context.source.locate(issue.path.slice(0, -1));
  } else if (issue.code === 'invalid_type') {
    kind = 'type';
    message = `${subject} must be ${expectedList(issue.expected ?? [])}, not ${describeFound(found, showValues)}`;
  } else if (issue.code === 'invalid_value') {
    kind = 'value';
    const values = (issue.values ?? []).map((value) => JSON.stringify(value));
    const allowed = values.length === 1 ? values[0] : `one of ${values.join(', ')}`;
    const shownValue = showValues && typeof found === 'string' ? quoted(found) : undefined;
    message = `${subject} must be ${allowed}, not ${shownValue ?? describeFound(found, showValues)}`;
  } else if (issue.code === 'too_small' || issue.code === 'too_big') {
    kind = 'range';
    message = `${subject} ${rangeText(issue)}`;
  } else {
    kind = 'other';
    message = `${subject}: ${issue.message}`;
  }
  const result: Issue = { severity: 'error', file: context.file, ...position, message };
  if (scope.caseId !== undefined) result.caseId = scope.caseId;
  if (scope.target !== undefined) result.target = scope.target;
  const hint = context.hint(issue.path, kind);
  if (hint !== undefined) result.hint = hint;
  return result;
}

function rangeText(issue: FlatIssue): string {
  const small = issue.code === 'too_small';
  const bound = Number(small ? issue.minimum : issue.maximum);
  if (issue.origin === 'array') {
    return small
      ? `must have at least ${bound} ${bound === 1 ? 'entry' : 'entries'}`
      : `must have at most ${bound} ${bound === 1 ? 'entry' : 'entries'}`;
  }
  if (issue.origin === 'string') {
    return small
      ? bound <= 1
        ? 'must not be empty'
        : `must be at least ${bound} characters long`
      : `must be at most ${bound} characters long`;
  }
  if (small) return issue.inclusive ? `must be at least ${bound}` : `must be greater than ${bound}`;
  return issue.inclusive ? `must be at most ${bound}` : `must be less than ${bound}`;
}

const EXPECTED_NAMES: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
  map: 'a mapping',
};

function expectedList(expected: readonly string[]): string {
  const names = [...new Set(expected.map((name) => EXPECTED_NAMES[name] ?? name))];
  if (names.length <= 1) return names[0] ?? 'a different value';
  return `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

function describeFound(value: unknown, showValues: boolean): string {
  if (showValues && (typeof value === 'string' || typeof value === 'number')) {
    return `${describeValue(value)} (${quoted(value)})`;
  }
  return describeValue(value);
}

function quoted(value: string | number): string {
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 36)}..."` : text;
}

/** Formats a data path as `a.b[0].c`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text;
}
