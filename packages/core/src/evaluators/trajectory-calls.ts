import type { TraceEvent } from '../trace/trace-event.js';

/** A `tool_call` event of a trace, as trajectory checks see it. */
export interface ActualCall {
  /** 1-based position among the trace's tool calls, for messages. */
  index: number;
  tool: string;
  /** The agent's own name when `tool` is a canonical one (`shell` for Codex's `command_execution`). */
  rawTool?: string;
  input: unknown;
}

/** The `tool_call` events of `trace`, in order. */
export function toolCalls(trace: readonly TraceEvent[]): ActualCall[] {
  const calls: ActualCall[] = [];
  for (const event of trace) {
    if (event.type !== 'tool_call') continue;
    const call: ActualCall = {
      index: calls.length + 1,
      tool: event.name ?? '(unnamed)',
      input: event.input,
    };
    if (event.rawName !== undefined && event.rawName !== call.tool) call.rawTool = event.rawName;
    calls.push(call);
  }
  return calls;
}

/** A configured name matches the canonical name or the agent's own, so one check serves every agent. */
export function isTool(call: ActualCall, tool: string): boolean {
  return call.tool === tool || call.rawTool === tool;
}

/** Steps of a trace: its tool calls plus its model turns (`model_step` events). */
export function countSteps(trace: readonly TraceEvent[]): number {
  let steps = 0;
  for (const event of trace) {
    if (event.type === 'tool_call' || event.type === 'model_step') steps++;
  }
  return steps;
}

/**
 * Tool results that report a failure: `metadata.is_error: true` (Claude Code), a `status` of
 * `failed` or `error` (Codex), or a non-zero `exit_code`.
 */
export function countToolErrors(trace: readonly TraceEvent[]): number {
  let errors = 0;
  for (const event of trace) {
    if (event.type === 'tool_result' && isToolError(event.metadata)) errors++;
  }
  return errors;
}

function isToolError(metadata: Record<string, unknown> | undefined): boolean {
  if (metadata === undefined) return false;
  if (metadata.is_error === true) return true;
  if (metadata.status === 'failed' || metadata.status === 'error') return true;
  return typeof metadata.exit_code === 'number' && metadata.exit_code !== 0;
}

/** `search -> shell (Bash) -> edit`, or `(none)`. */
export function callSequence(calls: readonly ActualCall[]): string {
  return calls.length === 0
    ? '(none)'
    : calls
        .map((call) => (call.rawTool ? `${call.tool} (${call.rawTool})` : call.tool))
        .join(' -> ');
}
