import type { Issue } from '../errors/input-issue.js';
import { isRecord, valueAt } from '../util/records.js';
import { describe } from './evaluator-options.js';
import { type ActualCall, isTool } from './trajectory-calls.js';

/** A described tool call: an expected call of a trajectory, or a forbidden one. */
export interface CallPattern {
  tool: string;
  /** Must be contained in the call's input (see `matchesSubset`). */
  input?: unknown;
  /** Field path (dots for nesting) to the pattern its value must match. */
  inputPattern?: Record<string, RegExp>;
}

const KEYS = ['tool', 'input', 'args', 'input_pattern'];

/**
 * Reads `{tool, input?, input_pattern?}` at `where` (`expected[2]`, `forbidden[0]`);
 * `args` is upstream AgentV's spelling of `input` (`args: any` checks nothing).
 * `path` is the issue path of the item.
 */
export function parseCallPattern(
  item: unknown,
  where: string,
  path: (string | number)[],
): { pattern?: CallPattern; problems: Issue[] } {
  const at = (message: string): Issue => ({ severity: 'error', path, message });
  if (!isRecord(item) || typeof item.tool !== 'string' || item.tool === '') {
    return {
      problems: [
        at(
          `"${where}" must be {tool, input?, input_pattern?} with a tool name, got ${describe(item)}`,
        ),
      ],
    };
  }
  const problems: Issue[] = [];
  for (const key of Object.keys(item)) {
    if (!KEYS.includes(key)) {
      problems.push(
        at(
          `"${where}" has unknown key "${key}"; only ${KEYS.map((k) => `"${k}"`).join(', ')} are read`,
        ),
      );
    }
  }
  if (item.input !== undefined && item.args !== undefined) {
    problems.push(
      at(`"${where}" has both "input" and "args"; keep one ("args" is upstream's name)`),
    );
  }
  const pattern: CallPattern = { tool: item.tool };
  const input = item.input ?? (item.args === 'any' ? undefined : item.args);
  if (input !== undefined) pattern.input = input;
  if (item.input_pattern !== undefined) {
    const compiled = compilePatterns(item.input_pattern, where);
    if (compiled.problem !== undefined) problems.push(at(compiled.problem));
    else pattern.inputPattern = compiled.patterns;
  }
  return problems.length > 0 ? { problems } : { pattern, problems };
}

function compilePatterns(
  value: unknown,
  where: string,
): { patterns?: Record<string, RegExp>; problem?: string } {
  const usage = 'give it as a map of input field to a regular expression, e.g. {command: "rm -rf"}';
  if (!isRecord(value) || Object.keys(value).length === 0) {
    return { problem: `"${where}.input_pattern" must be a non-empty map; ${usage}` };
  }
  const patterns: Record<string, RegExp> = {};
  for (const [field, source] of Object.entries(value)) {
    if (typeof source !== 'string' || source === '') {
      return {
        problem: `"${where}.input_pattern.${field}" must be a regular expression string, got ${describe(source)}`,
      };
    }
    try {
      patterns[field] = new RegExp(source);
    } catch (error) {
      return {
        problem: `"${where}.input_pattern.${field}" is not a valid regular expression: ${(error as Error).message}`,
      };
    }
  }
  return { patterns };
}

/** Whether `call` is `pattern`'s tool (canonical or raw name) with a matching input. */
export function matchesCall(pattern: CallPattern, call: ActualCall): boolean {
  return isTool(call, pattern.tool) && inputMismatch(pattern, call) === undefined;
}

/**
 * The first field of `call`'s input that does not match `pattern`, described
 * (`input.path is "b.txt", expected "a.txt"`); undefined when the input matches.
 */
export function inputMismatch(pattern: CallPattern, call: ActualCall): string | undefined {
  if (pattern.input !== undefined) {
    const subset = subsetMismatch(pattern.input, call.input, 'input');
    if (subset !== undefined) return subset;
  }
  for (const [field, regex] of Object.entries(pattern.inputPattern ?? {})) {
    const value = valueAt(call.input, field.split('.'));
    if (value === undefined)
      return `input.${field} is missing (expected to match /${regex.source}/)`;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (!regex.test(text))
      return `input.${field} ${describe(value)} does not match /${regex.source}/`;
  }
  return undefined;
}

/** What matched: `input.command "rm -rf /" matches /rm -rf/`, for a forbidden call. */
export function inputMatchDetail(pattern: CallPattern, call: ActualCall): string {
  const parts: string[] = [];
  if (pattern.input !== undefined) parts.push(`input contains ${describe(pattern.input)}`);
  for (const [field, regex] of Object.entries(pattern.inputPattern ?? {})) {
    parts.push(
      `input.${field} ${describe(valueAt(call.input, field.split('.')))} matches /${regex.source}/`,
    );
  }
  return parts.join(', ');
}

/** `"shell"`, `"shell" {"cwd":"/tmp"}`, `"shell" {"cwd":"/tmp"} command =~ /rm/`. */
export function patternLabel(pattern: CallPattern): string {
  let text = `"${pattern.tool}"`;
  if (pattern.input !== undefined) text += ` ${describe(pattern.input)}`;
  for (const [field, regex] of Object.entries(pattern.inputPattern ?? {})) {
    text += ` ${field} =~ /${regex.source}/`;
  }
  return text;
}

/** Mirrors `matchesSubset`, naming the first field that differs. */
function subsetMismatch(expected: unknown, actual: unknown, path: string): string | undefined {
  if (isRecord(expected)) {
    if (!isRecord(actual)) return `${path} is ${describe(actual)}, not an object`;
    for (const [key, value] of Object.entries(expected)) {
      if (!Object.hasOwn(actual, key)) return `${path}.${key} is missing`;
      const inner = subsetMismatch(value, actual[key], `${path}.${key}`);
      if (inner !== undefined) return inner;
    }
    return undefined;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path} is ${describe(actual)}, not a list`;
    if (actual.length !== expected.length) {
      return `${path} has ${actual.length} item(s), expected ${expected.length}`;
    }
    for (let index = 0; index < expected.length; index++) {
      const inner = subsetMismatch(expected[index], actual[index], `${path}[${index}]`);
      if (inner !== undefined) return inner;
    }
    return undefined;
  }
  return expected === actual
    ? undefined
    : `${path} is ${describe(actual)}, expected ${describe(expected)}`;
}
