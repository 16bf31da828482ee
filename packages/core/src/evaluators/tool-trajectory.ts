import { type CallPattern, inputMismatch, matchesCall, patternLabel } from './call-pattern.js';
import type { EvaluationScore, Evaluator } from './evaluator.js';
import { EvaluatorError } from './evaluator-error.js';
import { describe } from './evaluator-options.js';
import { immediateEvaluator } from './immediate-evaluator.js';
import { type ActualCall, callSequence, isTool, toolCalls } from './trajectory-calls.js';
import { gradeLimits, times } from './trajectory-limits.js';
import { parseTrajectoryOptions, TRAJECTORY_OPTIONS } from './trajectory-options.js';

const NO_TRACE = 'No trace available for evaluation';

/**
 * `tool_trajectory`: grades the `tool_call` events of the trace.
 * - `any_order` with `minimums: {tool: n}`: each tool must be called at least
 *   n times; score = minimums met / minimums.
 * - `in_order` with `expected: [{tool, input?, input_pattern?}]`: the expected calls must occur
 *   in this order, other calls may come between; scored as AgentV does
 *   (`gradeInOrder`): score = expected calls matched / expected calls.
 * - `exact`: the calls must be exactly the expected ones; score = positions
 *   matched / expected calls, and 0 when the number of calls differs.
 * A given `input` must be contained in the call's input (see `matchesSubset`); each
 * `input_pattern` field (dots for nesting) must match its regular expression.
 * Limits, with or without a mode: `forbidden` calls, per-tool `min_calls` / `max_calls`,
 * `max_steps` (tool calls + model turns), `max_tool_errors`. Limits are gates: any missed
 * limit scores 0, else the score is the mode's (1 without a mode).
 * A tool name matches a call's `name` (canonical, e.g. `shell`) or its `rawName` (the agent's
 * own, e.g. `Bash`). Each miss names the call (1-based) and the field that differs.
 * No trace scores 0 with the miss "No trace available for evaluation".
 */
export const toolTrajectoryEvaluator: Evaluator = immediateEvaluator({
  type: 'tool_trajectory',
  options: TRAJECTORY_OPTIONS,
  validate: (config) => parseTrajectoryOptions(config).problems,
  evaluateNow(config, context) {
    const { options, problems } = parseTrajectoryOptions(config);
    if (!options) throw new EvaluatorError(problems.map((problem) => problem.message).join('; '));
    if (!context.trace) return { score: 0, hits: [], misses: [NO_TRACE] };
    const calls = toolCalls(context.trace);
    let sequence: EvaluationScore = { score: 1, hits: [], misses: [] };
    if (options.mode === 'any_order') sequence = gradeMinimums(options.minimums!, calls);
    else if (options.mode === 'in_order') sequence = gradeInOrder(options.expected!, calls);
    else if (options.mode === 'exact') sequence = gradeExact(options.expected!, calls);
    const limits = gradeLimits(options, calls, context.trace);
    return {
      score: limits.misses.length > 0 ? 0 : sequence.score,
      hits: [...sequence.hits, ...limits.hits],
      misses: [...sequence.misses, ...limits.misses],
    };
  },
});

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

function gradeInOrder(expected: CallPattern[], calls: ActualCall[]): EvaluationScore {
  const hits: string[] = [];
  const misses: string[] = [];
  // AgentV's scan-forward matching, so migrated evals keep their scores: each
  // expected call takes the next call of its tool after the previous match. A
  // call of that tool with a non-matching input is used up as a miss; a tool
  // never called again leaves no calls for the expected calls after it.
  let next = 0;
  expected.forEach((item, index) => {
    const step = `Expected call ${index + 1} ${patternLabel(item)}`;
    while (next < calls.length && !isTool(calls[next]!, item.tool)) next++;
    const call = calls[next];
    if (call === undefined) {
      misses.push(`${step} not found after the previous match`);
      return;
    }
    const mismatch = inputMismatch(item, call);
    if (mismatch === undefined) hits.push(`${step} matched call ${call.index}`);
    else misses.push(`${step}: call ${call.index} ${label(call)}: ${mismatch}`);
    next++;
  });
  if (misses.length > 0) misses.push(`Actual tool calls: ${callSequence(calls)}`);
  return { score: hits.length / expected.length, hits, misses };
}

function gradeExact(expected: CallPattern[], calls: ActualCall[]): EvaluationScore {
  const hits: string[] = [];
  const misses: string[] = [];
  const compared = Math.min(expected.length, calls.length);
  for (let index = 0; index < compared; index++) {
    const item = expected[index]!;
    const call = calls[index]!;
    if (matchesCall(item, call)) {
      hits.push(`Call ${call.index} ${patternLabel(item)} matched`);
    } else if (!isTool(call, item.tool)) {
      misses.push(`Call ${call.index}: expected ${patternLabel(item)}, got ${label(call)}`);
    } else {
      misses.push(`Call ${call.index} ${label(call)}: ${inputMismatch(item, call)}`);
    }
  }
  if (calls.length !== expected.length) {
    misses.push(
      `Expected exactly ${expected.length} tool call(s), got ${calls.length}: ${callSequence(calls)}`,
    );
    return { score: 0, hits, misses };
  }
  return { score: hits.length / expected.length, hits, misses };
}

function label(call: ActualCall): string {
  return call.input === undefined ? `"${call.tool}"` : `"${call.tool}" ${describe(call.input)}`;
}
