import { describe, expect, it } from 'vitest';
import { summarizeTrace } from './summarize-trace.js';
import type { TraceEvent } from './trace-event.js';

const at = '2025-01-01T00:00:00.000Z';

describe('summarizeTrace', () => {
  it('counts events, tool calls per tool and errors', () => {
    const trace: TraceEvent[] = [
      { type: 'model_step', timestamp: at, name: 'gpt-4o' },
      { type: 'tool_call', timestamp: at, name: 'search', input: { q: 'a' } },
      { type: 'tool_result', timestamp: at, name: 'search', output: 'ok' },
      { type: 'tool_call', timestamp: at, name: 'lookupOrder' },
      { type: 'tool_call', timestamp: at, name: 'search' },
      { type: 'error', timestamp: at, text: 'rate limited' },
      { type: 'message', timestamp: at, text: 'done' },
    ];
    expect(summarizeTrace(trace)).toEqual({
      eventCount: 7,
      toolNames: ['lookupOrder', 'search'],
      toolCallsByName: { lookupOrder: 1, search: 2 },
      errorCount: 1,
    });
  });

  it('counts a tool_call without a name, or with an empty one, as an event but not a tool', () => {
    const trace: TraceEvent[] = [
      { type: 'tool_call', timestamp: at },
      { type: 'tool_call', timestamp: at, name: '' },
      { type: 'tool_call', timestamp: at, name: 'search' },
    ];
    expect(summarizeTrace(trace)).toEqual({
      eventCount: 3,
      toolNames: ['search'],
      toolCallsByName: { search: 1 },
      errorCount: 0,
    });
  });

  it('summarises an empty trace', () => {
    expect(summarizeTrace([])).toEqual({
      eventCount: 0,
      toolNames: [],
      toolCallsByName: {},
      errorCount: 0,
    });
  });
});
