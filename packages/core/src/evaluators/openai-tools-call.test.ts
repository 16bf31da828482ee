import { describe, expect, it } from 'vitest';
import { openAiToolsCallEvaluator } from './openai-tools-call.js';
import { makeConfig, makeContext } from './test-support/make-context.js';

const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      },
    },
  },
];

function grade(answer: unknown, options: Record<string, unknown> = {}) {
  const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
  return openAiToolsCallEvaluator.evaluate(
    makeConfig('is_valid_openai_tools_call', options),
    makeContext({ candidateAnswer: text }),
  );
}

const call = (name: string, args: unknown) => ({
  id: 'c1',
  type: 'function',
  function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
});

describe('is_valid_openai_tools_call', () => {
  it('accepts a list of calls, a tool_calls object, or one call', async () => {
    expect((await grade([call('get_weather', { city: 'Oslo' })])).score).toBe(1);
    expect((await grade({ tool_calls: [call('x', {})] })).hits).toEqual([
      'Tool call 1 "x" is valid',
    ]);
    expect((await grade(call('x', {}))).score).toBe(1);
  });

  it('names the call and what is wrong with it', async () => {
    const result = await grade([call('a', '{"city": '), { function: { arguments: '{}' } }, 'x']);
    expect(result.score).toBe(0);
    expect(result.misses).toEqual([
      expect.stringMatching(/^Tool call 1 "a": function.arguments is not valid JSON/),
      'Tool call 2: function.name is missing',
      'Tool call 3: must be {type: "function", function: {name, arguments}}, got "x"',
    ]);
    expect((await grade('not json')).misses[0]).toMatch(/^Answer is not valid JSON/);
  });

  it('checks calls against the declared tools', async () => {
    expect((await grade([call('get_weather', { city: 'Oslo' })], { tools })).score).toBe(1);
    const wrong = await grade([call('get_weather', { town: 'Oslo' }), call('book', {})], { tools });
    expect(wrong.misses).toEqual([
      'Tool call 1 "get_weather": Schema violation at arguments: must have required property \'city\'',
      'Tool call 2 "book": "book" is not a declared tool (get_weather)',
    ]);
  });

  it('validates tools', () => {
    const issues = openAiToolsCallEvaluator.validate?.(
      makeConfig('is_valid_openai_tools_call', { tools: [{ name: 'x' }] }),
    );
    expect(issues?.map((issue) => issue.message)).toEqual([
      expect.stringContaining('"tools[0]" has no function.name'),
    ]);
  });
});
