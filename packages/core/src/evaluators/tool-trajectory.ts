import type { Issue } from '../errors/input-issue.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import type { TraceEvent } from '../trace/trace-event.js';
import { isRecord } from '../util/records.js';
import type { EvaluationScore, Evaluator } from './evaluator.js';
import { EvaluatorError } from './evaluator-error.js';
import { describe, optionIssue } from './evaluator-options.js';
import { matchesSubset } from './matches-subset.js';

/** One expected tool call of `in_order` / `exact`. */
interface ExpectedCall {
  tool: string;
  input?: unknown;
}

type TrajectoryOptions =
  | { mode: 'any_order'; minimums: Record<string, number> }
  | { mode: 'in_order' | 'exact'; expected: ExpectedCall[] };

interface ActualCall {
  tool: string;
  /** The agent's own name when `tool` is a canonical one (`shell` for Codex's `command_execution`). */
  rawTool?: string;
  input: unknown;
}

const MODES = ['any_order', 'in_order', 'exact'];
const NO_TRACE = 'No trace available for evaluation';

/**
 * `tool_trajectory`: grades the `tool_call` events of the trace.
 * - `any_order` with `minimums: {tool: n}`: each tool must be called at least
 *   n times; score = minimums met / minimums.
 * - `in_order` with `expected: [{tool, input?}]`: the expected calls must occur
 *   in this order, other calls may come between; scored as AgentV does
 *   (`gradeInOrder`): score = expected calls matched / expected calls.
 * - `exact`: the calls must be exactly the expected ones; score = positions
 *   matched / expected calls, and 0 when the number of calls differs.
 * A given `input` must be contained in the call's input (see `matchesSubset`). A tool name
 * matches a call's `name` (canonical, e.g. `shell`) or its `rawName` (the agent's own, e.g. `Bash`).
 * No trace scores 0 with the miss "No trace available for evaluation".
 */
export const toolTrajectoryEvaluator: Evaluator = {
  type: 'tool_trajectory',
  options: ['mode', 'expected', 'minimums'],
  validate: (config) => parseOptions(config).problems,
  async evaluate(config, context) {
    const { options, problems } = parseOptions(config);
    if (!options) throw new EvaluatorError(problems.map((problem) => problem.message).join('; '));
    if (!context.trace) return { score: 0, hits: [], misses: [NO_TRACE] };
    const calls = toolCalls(context.trace);
    if (options.mode === 'any_order') return gradeMinimums(options.minimums, calls);
    if (options.mode === 'in_order') return gradeInOrder(options.expected, calls);
    return gradeExact(options.expected, calls);
  },
};

function toolCalls(trace: readonly TraceEvent[]): ActualCall[] {
  return trace
    .filter((event) => event.type === 'tool_call')
    .map((event) => {
      const call: ActualCall = { tool: event.name ?? '(unnamed)', input: event.input };
      if (event.rawName !== undefined && event.rawName !== call.tool) call.rawTool = event.rawName;
      return call;
    });
}

/** A configured name matches the canonical name or the agent's own, so one check serves every agent. */
function isTool(call: ActualCall, tool: string): boolean {
  return call.tool === tool || call.rawTool === tool;
}

function matches(expected: ExpectedCall, call: ActualCall): boolean {
  return (
    isTool(call, expected.tool) &&
    (expected.input === undefined || matchesSubset(expected.input, call.input))
  );
}

function gradeMinimums(minimums: Record<string, number>, calls: ActualCall[]): EvaluationScore {
  const hits: string[] = [];
  const misses: string[] = [];
  const entries = Object.entries(minimums);
  for (const [tool, minimum] of entries) {
    const count = calls.filter((call) => isTool(call, tool)).length;
    if (count >= minimum) hits.push(`"${tool}" called ${times(count)} (minimum ${minimum})`);
    else misses.push(`"${tool}" called ${times(count)}, expected at least ${minimum}`);
  }
  return { score: entries.length === 0 ? 1 : hits.length / entries.length, hits, misses };
}

function gradeInOrder(expected: ExpectedCall[], calls: ActualCall[]): EvaluationScore {
  const hits: string[] = [];
  const misses: string[] = [];
  // AgentV's scan-forward matching, so migrated evals keep their scores: each
  // expected call takes the next call of its tool after the previous match. A
  // call of that tool with a non-matching input is used up as a miss; a tool
  // never called again leaves no calls for the expected calls after it.
  let next = 0;
  expected.forEach((item, index) => {
    const step = `Expected call ${index + 1} ${label(item)}`;
    while (next < calls.length && !isTool(calls[next]!, item.tool)) next++;
    const call = calls[next];
    if (call === undefined) {
      misses.push(`${step} not found after the previous match`);
      return;
    }
    if (matches(item, call)) hits.push(`${step} matched call ${next + 1}`);
    else misses.push(`${step}: call ${next + 1} ${label(call)} has a different input`);
    next++;
  });
  if (misses.length > 0) misses.push(`Actual tool calls: ${sequence(calls)}`);
  return { score: hits.length / expected.length, hits, misses };
}

function gradeExact(expected: ExpectedCall[], calls: ActualCall[]): EvaluationScore {
  const hits: string[] = [];
  const misses: string[] = [];
  const compared = Math.min(expected.length, calls.length);
  for (let index = 0; index < compared; index++) {
    const item = expected[index]!;
    const call = calls[index]!;
    if (matches(item, call)) hits.push(`Call ${index + 1} ${label(item)} matched`);
    else misses.push(`Call ${index + 1}: expected ${label(item)}, got ${label(call)}`);
  }
  if (calls.length !== expected.length) {
    misses.push(
      `Expected exactly ${expected.length} tool call(s), got ${calls.length}: ${sequence(calls)}`,
    );
    return { score: 0, hits, misses };
  }
  return { score: hits.length / expected.length, hits, misses };
}

function label(call: ExpectedCall | ActualCall): string {
  return call.input === undefined ? `"${call.tool}"` : `"${call.tool}" ${describe(call.input)}`;
}

function sequence(calls: ActualCall[]): string {
  return calls.length === 0
    ? '(none)'
    : calls
        .map((call) => (call.rawTool ? `${call.tool} (${call.rawTool})` : call.tool))
        .join(' -> ');
}

function times(count: number): string {
  return count === 1 ? '1 time' : `${count} times`;
}

function parseOptions(config: EvaluatorConfig): {
  options?: TrajectoryOptions;
  problems: Issue[];
} {
  const { mode } = config;
  if (typeof mode !== 'string' || !MODES.includes(mode)) {
    return {
      problems: [
        optionIssue('mode', `"mode" must be one of ${MODES.join(', ')}, got ${describe(mode)}`),
      ],
    };
  }
  if (mode === 'any_order') {
    const problems = validateMinimums(config.minimums);
    if (problems.length > 0) return { problems };
    return { options: { mode, minimums: config.minimums as Record<string, number> }, problems };
  }
  const problems = validateExpected(config.expected, mode);
  if (problems.length > 0) return { problems };
  return {
    options: { mode: mode as 'in_order' | 'exact', expected: config.expected as ExpectedCall[] },
    problems,
  };
}

function validateMinimums(minimums: unknown): Issue[] {
  const usage =
    'give "minimums" as a map of tool name to the least number of calls, e.g. {search: 1}';
  if (minimums === undefined)
    return [optionIssue('minimums', `mode any_order needs "minimums"; ${usage}`)];
  if (!isRecord(minimums) || Object.keys(minimums).length === 0) {
    return [optionIssue('minimums', `"minimums" must be a non-empty map; ${usage}`)];
  }
  return Object.entries(minimums)
    .filter(([, count]) => !(Number.isInteger(count) && (count as number) >= 0))
    .map(([tool, count]) => ({
      severity: 'error' as const,
      path: ['minimums', tool],
      message: `"minimums.${tool}" must be a whole number >= 0, got ${describe(count)}`,
    }));
}

function validateExpected(expected: unknown, mode: string): Issue[] {
  const usage = 'give "expected" as a list of {tool, input?}';
  if (expected === undefined)
    return [optionIssue('expected', `mode ${mode} needs "expected"; ${usage}`)];
  if (!Array.isArray(expected) || expected.length === 0) {
    return [optionIssue('expected', `"expected" must be a non-empty list; ${usage}`)];
  }
  const problems: Issue[] = [];
  const at = (index: number, message: string): Issue => ({
    severity: 'error',
    path: ['expected', index],
    message,
  });
  expected.forEach((item, index) => {
    if (!isRecord(item) || typeof item.tool !== 'string' || item.tool === '') {
      problems.push(
        at(
          index,
          `"expected[${index}]" must be {tool, input?} with a tool name, got ${describe(item)}`,
        ),
      );
      return;
    }
    for (const key of Object.keys(item)) {
      if (key !== 'tool' && key !== 'input') {
        problems.push(
          at(
            index,
            `"expected[${index}]" has unknown key "${key}"; only "tool" and "input" are read`,
          ),
        );
      }
    }
  });
  return problems;
}
