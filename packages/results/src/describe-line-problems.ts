import type { z } from 'zod';

/** Problems named in one message; the rest are counted. */
const SHOWN = 3;
/** Missing keys of one object named in one problem; the rest are counted. */
const KEYS_SHOWN = 5;

/** Keys missing from one object, reported together. */
interface Missing {
  parent: string;
  keys: string[];
  /** The path of the first key, and what it should hold. */
  first: string;
  expected: string;
}

/**
 * What is wrong with a result line, in one sentence: `<field path>: <problem>`
 * per problem (`evaluator_results: expected an array, got a string`,
 * `run.cases: missing (expected a whole number)`), several keys missing from
 * one object named together (`missing timestamp, dataset and target`), the
 * first three problems named and the rest counted. Only short values found
 * where one of a few words belongs are quoted: a line may hold answers, errors
 * and keys nobody should find in a message.
 */
export function describeLineProblems(issues: readonly z.core.$ZodIssue[], line: unknown): string {
  const problems: (string | Missing)[] = [];
  const missingIn = new Map<string, Missing>();
  for (const issue of issues) {
    const found = valueAt(line, issue.path);
    if (found === undefined && issue.path.length > 0) {
      const parent = formatPath(issue.path.slice(0, -1));
      const key = String(issue.path.at(-1));
      const missing = missingIn.get(parent);
      if (missing) missing.keys.push(key);
      else {
        const first = formatPath(issue.path);
        const added: Missing = { parent, keys: [key], first, expected: expectedOf(issue) };
        missingIn.set(parent, added);
        problems.push(added);
      }
      continue;
    }
    problems.push(at(formatPath(issue.path), describeProblem(issue, found)));
  }
  const texts = problems.map((problem) => {
    if (typeof problem === 'string') return problem;
    const { parent, keys, first, expected } = problem;
    if (keys.length === 1) return at(first, `missing (expected ${expected})`);
    const more = keys.length - KEYS_SHOWN;
    const shown = more > 1 ? [...keys.slice(0, KEYS_SHOWN), `${more} more fields`] : keys;
    return at(parent, `missing ${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`);
  });
  const more = texts.length - SHOWN;
  return more > 0
    ? `${texts.slice(0, SHOWN).join('; ')}; and ${more} more problem${more === 1 ? '' : 's'}`
    : texts.join('; ');
}

/** `where: what`, or `what` for the line itself. */
function at(where: string, what: string): string {
  return where === '' ? what : `${where}: ${what}`;
}

function describeProblem(issue: z.core.$ZodIssue, found: unknown): string {
  if (issue.code === 'invalid_type') {
    const expected = issue.path.length === 0 ? 'a result line (a JSON object)' : expectedOf(issue);
    return `expected ${expected}, got ${kindOf(found)}`;
  }
  if (issue.code === 'invalid_value') {
    const shown = typeof found === 'string' ? quoted(found) : kindOf(found);
    return `expected ${expectedOf(issue)}, got ${shown}`;
  }
  if (issue.code === 'too_small' || issue.code === 'too_big') {
    const small = issue.code === 'too_small';
    const sign = small ? '>' : '<';
    const bound = String(small ? issue.minimum : issue.maximum);
    return `expected ${sign}${issue.inclusive ? '=' : ''} ${bound}, got ${JSON.stringify(found)}`;
  }
  return issue.message;
}

/** What the value at the issue's path should be, in words. */
function expectedOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') return named(issue.expected);
  if (issue.code === 'invalid_value') {
    const values = issue.values.map((value) => JSON.stringify(value));
    return values.length === 1 ? values[0]! : `one of ${values.join(', ')}`;
  }
  return 'a value';
}

const NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
  record: 'an object',
};

function named(expected: string): string {
  return NAMES[expected] ?? expected;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number' && !Number.isInteger(value)) return 'a fraction';
  return typeof value === 'object' ? 'an object' : named(typeof value);
}

// Enum values are short words: a long string is not quoted, as it may be an answer or a key.
function quoted(text: string): string {
  return text.length <= 20 ? JSON.stringify(text) : `a string of ${text.length} characters`;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** `a.b[0].c`, as paths are written in messages about JSON. */
function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text;
}
