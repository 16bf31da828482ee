import { describe, expect, it } from 'vitest';
import { normalizeTrace } from './normalize-trace.js';
import type { ProviderResponse } from './provider-response.js';

const now = new Date('2025-03-01T10:00:00.000Z');
const at = '2025-03-01T09:59:58.000Z';

describe('normalizeTrace', () => {
  it('keeps the valid events of a trace in order and drops the invalid ones', () => {
    const response = {
      text: 'done',
      trace: [
        { type: 'model_step', timestamp: at, name: 'gpt-4o' },
        { type: 'tool_call', timestamp: 'yesterday', name: 'search' },
        { type: 'tool_call', timestamp: at, name: 'search', input: { q: 'refund' } },
        { type: 'thinking', timestamp: at },
        'not an event',
        { type: 'tool_result', timestamp: at, name: 'search', output: ['order 42'] },
      ],
    } as unknown as ProviderResponse;
    expect(normalizeTrace(response, now)).toEqual([
      { type: 'model_step', timestamp: at, name: 'gpt-4o' },
      { type: 'tool_call', timestamp: at, name: 'search', input: { q: 'refund' } },
      { type: 'tool_result', timestamp: at, name: 'search', output: ['order 42'] },
    ]);
  });

  it("keeps the agent's own tool name, written rawName by providers or raw_name on the wire", () => {
    const at = '2025-01-01T00:00:00.000Z';
    const trace = normalizeTrace({
      text: '',
      trace: [
        { type: 'tool_call', timestamp: at, name: 'shell', rawName: 'Bash' },
        { type: 'tool_call', timestamp: at, name: 'shell', raw_name: 'bash' } as never,
      ],
    });
    expect(trace).toEqual([
      { type: 'tool_call', timestamp: at, name: 'shell', rawName: 'Bash' },
      { type: 'tool_call', timestamp: at, name: 'shell', rawName: 'bash' },
    ]);
  });

  it('derives tool_call and tool_result events from output messages when there is no trace', () => {
    const response: ProviderResponse = {
      text: 'Refunded.',
      outputMessages: [
        { role: 'assistant', content: 'Looking it up.' },
        {
          role: 'assistant',
          toolCalls: [
            { tool: 'lookupOrder', input: { id: 42 }, output: { total: 59.9 }, id: 'c1' },
            { tool: 'refund', input: { id: 42 } },
          ],
        },
      ],
    };
    expect(normalizeTrace(response, now)).toEqual([
      {
        type: 'tool_call',
        timestamp: now.toISOString(),
        name: 'lookupOrder',
        id: 'c1',
        input: { id: 42 },
      },
      {
        type: 'tool_result',
        timestamp: now.toISOString(),
        name: 'lookupOrder',
        id: 'c1',
        output: { total: 59.9 },
      },
      { type: 'tool_call', timestamp: now.toISOString(), name: 'refund', input: { id: 42 } },
    ]);
  });

  it('prefers the provider trace over output messages', () => {
    const response: ProviderResponse = {
      text: 'x',
      trace: [{ type: 'tool_call', timestamp: at, name: 'fromTrace' }],
      outputMessages: [{ role: 'assistant', toolCalls: [{ tool: 'fromMessages' }] }],
    };
    expect(normalizeTrace(response, now)?.map((event) => event.name)).toEqual(['fromTrace']);
  });

  it('derives from output messages when every trace element was invalid', () => {
    const response = {
      text: 'x',
      trace: [{ type: 'tool_call' }],
      outputMessages: [{ role: 'assistant', toolCalls: [{ tool: 'search' }] }],
    } as unknown as ProviderResponse;
    expect(normalizeTrace(response, now)?.map((event) => event.name)).toEqual(['search']);
  });

  it('gives no trace without trace and tool calls, and an empty one for an empty trace', () => {
    expect(normalizeTrace({ text: 'plain' }, now)).toBeUndefined();
    expect(
      normalizeTrace({ text: 'x', outputMessages: [{ role: 'assistant', content: 'hi' }] }, now),
    ).toBeUndefined();
    expect(normalizeTrace({ text: 'x', trace: [] }, now)).toEqual([]);
    expect(
      normalizeTrace({ text: 'x', trace: 'garbage' } as unknown as ProviderResponse, now),
    ).toBeUndefined();
  });
});
