import type { TraceEvent } from './trace-event.js';
import type { TraceSummary } from './trace-summary.js';

/**
 * Summarises a trace: its event count, the distinct names of tools called
 * (sorted; a `tool_call` whose name is missing or empty is no tool), the
 * number of `tool_call` events per tool name and the number of `error` events. The orchestrator computes it once per provider call; result
 * writers copy it from the result.
 */
export function summarizeTrace(trace: readonly TraceEvent[]): TraceSummary {
  const toolCallsByName: Record<string, number> = {};
  let errorCount = 0;
  for (const event of trace) {
    if (event.type === 'tool_call') {
      // A call without a name is counted in eventCount but names no tool.
      if (event.name) toolCallsByName[event.name] = (toolCallsByName[event.name] ?? 0) + 1;
    } else if (event.type === 'error') {
      errorCount++;
    }
  }
  const toolNames = Object.keys(toolCallsByName).sort();
  return {
    eventCount: trace.length,
    toolNames,
    toolCallsByName: Object.fromEntries(toolNames.map((name) => [name, toolCallsByName[name]!])),
    errorCount,
  };
}
