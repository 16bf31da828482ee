import { describe, expect, it } from 'vitest';
import type { OtlpSpan } from './otlp-span.js';
import { spanEvents } from './span-events.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');

function span(
  name: string,
  attributes: Record<string, unknown>,
  at: number,
  extra: Partial<OtlpSpan> = {},
): OtlpSpan {
  return {
    traceId: 'a'.repeat(32),
    spanId: `${at}`.padStart(16, '0'),
    name,
    startMs: T0 + at,
    endMs: T0 + at + 10,
    attributes,
    resource: {},
    statusCode: 0,
    events: [],
    ...extra,
  };
}

describe('spanEvents', () => {
  it('maps the AI SDK: provider calls to model steps with usage, ai.toolCall to a call and its result', () => {
    const { trace, usage, spanCount } = spanEvents([
      span('ai.generateText', { 'ai.usage.promptTokens': 50, 'ai.usage.completionTokens': 9 }, 0),
      span(
        'ai.generateText.doGenerate',
        { 'ai.model.id': 'gpt-4o', 'ai.usage.inputTokens': 30, 'ai.usage.outputTokens': 5 },
        1,
      ),
      span(
        'ai.toolCall',
        {
          'ai.toolCall.name': 'search',
          'ai.toolCall.id': 'c1',
          'ai.toolCall.args': '{"q":"x"}',
          'ai.toolCall.result': '"found"',
        },
        20,
      ),
      span(
        'ai.generateText.doGenerate',
        {
          'gen_ai.response.model': 'gpt-4o-2024',
          'gen_ai.usage.input_tokens': 20,
          'gen_ai.usage.output_tokens': 4,
          'ai.response.text': 'done',
        },
        40,
      ),
    ]);
    expect(spanCount).toBe(4);
    expect(usage).toEqual({ inputTokens: 50, outputTokens: 9, totalTokens: 59 });
    expect(trace.map((event) => [event.type, event.name, event.timestamp])).toEqual([
      ['model_step', 'gpt-4o', '2026-01-01T00:00:00.001Z'],
      ['tool_call', 'search', '2026-01-01T00:00:00.020Z'],
      ['tool_result', 'search', '2026-01-01T00:00:00.030Z'],
      ['model_step', 'gpt-4o-2024', '2026-01-01T00:00:00.040Z'],
    ]);
    expect(trace[1]).toMatchObject({ id: 'c1', input: { q: 'x' } });
    expect(trace[2]).toMatchObject({ id: 'c1', output: 'found' });
    expect(trace[3]).toMatchObject({
      text: 'done',
      metadata: { input_tokens: 20, output_tokens: 4, duration_ms: 10 },
    });
  });

  it('maps GenAI semantic conventions: chat spans with usage, execute_tool spans', () => {
    const { trace, usage } = spanEvents([
      span('invoke_agent helper', { 'gen_ai.operation.name': 'invoke_agent' }, 0),
      span(
        'chat gpt',
        {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt',
          'gen_ai.usage.input_tokens': 7,
          'gen_ai.usage.output_tokens': 3,
        },
        1,
      ),
      span(
        'execute_tool lookup',
        {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'lookup',
          'gen_ai.tool.call.arguments': '{"id":7}',
          'gen_ai.tool.call.result': 'not json',
        },
        5,
      ),
    ]);
    expect(usage).toEqual({ inputTokens: 7, outputTokens: 3, totalTokens: 10 });
    expect(trace).toEqual([
      expect.objectContaining({ type: 'model_step', name: 'gpt' }),
      expect.objectContaining({ type: 'tool_call', name: 'lookup', input: { id: 7 } }),
      expect.objectContaining({ type: 'tool_result', name: 'lookup', output: 'not json' }),
    ]);
  });

  it('maps OpenInference TOOL and LLM spans', () => {
    const { trace, usage } = spanEvents([
      span(
        'llm',
        {
          'openinference.span.kind': 'LLM',
          'llm.model_name': 'claude',
          'llm.token_count.prompt': 11,
          'llm.token_count.completion': 2,
        },
        0,
      ),
      span(
        'tool',
        {
          'openinference.span.kind': 'TOOL',
          'tool.name': 'calc',
          'input.value': '{"a":1}',
          'output.value': '2',
        },
        3,
      ),
    ]);
    expect(usage).toEqual({ inputTokens: 11, outputTokens: 2, totalTokens: 13 });
    expect(trace.slice(1)).toEqual([
      expect.objectContaining({ type: 'tool_call', name: 'calc', input: { a: 1 } }),
      expect.objectContaining({ type: 'tool_result', name: 'calc', output: '2' }),
    ]);
  });

  it('turns a span with an error status into an error event at its end, with the exception message', () => {
    const { trace, usage } = spanEvents([
      span('fetch', {}, 0, {
        statusCode: 2,
        events: [
          { name: 'exception', timeMs: T0 + 5, attributes: { 'exception.message': 'ECONNRESET' } },
        ],
      }),
      span('work', {}, 1, { statusCode: 2, statusMessage: 'quota used up' }),
      span('fine', {}, 2, { statusCode: 1 }),
    ]);
    expect(usage).toBeUndefined();
    expect(trace).toEqual([
      expect.objectContaining({
        type: 'error',
        name: 'fetch',
        text: 'ECONNRESET',
        timestamp: '2026-01-01T00:00:00.010Z',
      }),
      expect.objectContaining({ type: 'error', name: 'work', text: 'quota used up' }),
    ]);
  });
});
