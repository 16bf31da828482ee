import type { TraceEvent } from '../trace/trace-event.js';

// Upstream AgentV's read-only tools, with the canonical names of the same tools.
const EXPLORATION_TOOLS = new Set([
  'read',
  'grep',
  'glob',
  'search',
  'list',
  'Read',
  'Grep',
  'Glob',
  'WebSearch',
  'WebFetch',
  'read_file',
  'web_fetch',
]);

/** The share of a trace's tool calls that only look (read, search, fetch); undefined without tool calls. */
export function explorationRatio(trace: readonly TraceEvent[]): number | undefined {
  let calls = 0;
  let exploring = 0;
  for (const event of trace) {
    if (event.type !== 'tool_call') continue;
    calls++;
    if (EXPLORATION_TOOLS.has(event.name ?? '') || EXPLORATION_TOOLS.has(event.rawName ?? ''))
      exploring++;
  }
  return calls === 0 ? undefined : exploring / calls;
}
