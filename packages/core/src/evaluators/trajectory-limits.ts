import type { TraceEvent } from '../trace/trace-event.js';
import { inputMatchDetail, matchesCall, patternLabel } from './call-pattern.js';
import { type ActualCall, countSteps, countToolErrors, isTool } from './trajectory-calls.js';
import type { TrajectoryOptions } from './trajectory-options.js';

/** The outcome of a trajectory's limits: one hit or miss per check. */
export interface LimitOutcome {
  hits: string[];
  misses: string[];
}

/**
 * Grades the limits of `options` against `calls` (the `tool_call` events of
 * `trace`): each forbidden pattern (a miss per call matching it), each tool's
 * `min_calls` / `max_calls`, `max_steps` (tool calls + model turns) and
 * `max_tool_errors`.
 */
export function gradeLimits(
  options: TrajectoryOptions,
  calls: readonly ActualCall[],
  trace: readonly TraceEvent[],
): LimitOutcome {
  const hits: string[] = [];
  const misses: string[] = [];
  options.forbidden?.forEach((pattern, index) => {
    const found = calls.filter((call) => matchesCall(pattern, call));
    if (found.length === 0) {
      hits.push(`No call matches forbidden[${index}] ${patternLabel(pattern)}`);
      return;
    }
    for (const call of found) {
      const detail = inputMatchDetail(pattern, call);
      misses.push(
        `Forbidden call: call ${call.index} "${call.tool}"${call.rawTool ? ` (${call.rawTool})` : ''} matches forbidden[${index}]${detail ? ` (${detail})` : ''}`,
      );
    }
  });
  for (const [tool, least] of Object.entries(options.minCalls ?? {})) {
    const count = calls.filter((call) => isTool(call, tool)).length;
    if (count >= least) hits.push(`"${tool}" called ${times(count)} (min_calls ${least})`);
    else misses.push(`"${tool}" called ${times(count)}, min_calls is ${least}`);
  }
  for (const [tool, most] of Object.entries(options.maxCalls ?? {})) {
    const count = calls.filter((call) => isTool(call, tool)).length;
    if (count <= most) hits.push(`"${tool}" called ${times(count)} (max_calls ${most})`);
    else misses.push(`"${tool}" called ${times(count)}, max_calls is ${most}`);
  }
  if (options.maxSteps !== undefined) {
    const steps = countSteps(trace);
    const text = `${steps} step(s) (${calls.length} tool call(s) + ${steps - calls.length} model turn(s))`;
    if (steps <= options.maxSteps) hits.push(`${text}, max_steps ${options.maxSteps}`);
    else misses.push(`${text} exceed max_steps ${options.maxSteps}`);
  }
  if (options.maxToolErrors !== undefined) {
    const errors = countToolErrors(trace);
    if (errors <= options.maxToolErrors) {
      hits.push(`${errors} failed tool call(s), max_tool_errors ${options.maxToolErrors}`);
    } else {
      misses.push(`${errors} failed tool call(s) exceed max_tool_errors ${options.maxToolErrors}`);
    }
  }
  return { hits, misses };
}

export function times(count: number): string {
  return count === 1 ? '1 time' : `${count} times`;
}
