import { afterEach, describe, expect, it } from 'vitest';
import { type AnthropicServer, startAnthropicServer } from './anthropic-server.js';

let server: AnthropicServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const tools = [{ name: 'Bash', input_schema: { type: 'object' } }];

async function post(body: unknown): Promise<Response> {
  return fetch(`${server?.origin}/v1/messages?beta=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function events(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const [eventLine, dataLine] = frame.split('\n');
      return {
        event: eventLine?.replace('event: ', '') ?? '',
        data: JSON.parse(dataLine?.replace('data: ', '') ?? '{}'),
      };
    });
}

describe('the scripted Anthropic Messages server', () => {
  it('streams a tool call as the API does, then the next turn once a tool result comes back', async () => {
    server = await startAnthropicServer([
      { tools: [{ tool: 'Bash', input: { command: 'npm test' } }] },
      { text: 'All tests pass.', usage: { input: 300, output: 12 } },
    ]);
    const first = await post({ model: 'm', tools, messages: [{ role: 'user', content: 'go' }] });
    expect(first.headers.get('content-type')).toBe('text/event-stream');
    const frames = events(await first.text());
    expect(frames.map((frame) => frame.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(frames[2]?.data.content_block).toMatchObject({ type: 'tool_use', name: 'Bash' });
    const json = frames
      .filter((frame) => frame.event === 'content_block_delta')
      .map((frame) => (frame.data.delta as { partial_json: string }).partial_json)
      .join('');
    expect(JSON.parse(json)).toEqual({ command: 'npm test' });
    expect(frames[6]?.data).toMatchObject({ delta: { stop_reason: 'tool_use' } });

    const second = await post({
      model: 'm',
      tools,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
      ],
    });
    const text = events(await second.text());
    const answer = text
      .filter((frame) => frame.event === 'content_block_delta')
      .map((frame) => (frame.data.delta as { text: string }).text)
      .join('');
    expect(answer).toBe('All tests pass.');
    expect(text.at(-2)?.data).toMatchObject({
      delta: { stop_reason: 'end_turn' },
      usage: { output_tokens: 12 },
    });
    expect(server.conversation()).toHaveLength(2);
    expect(server.requests[1]?.url).toBe('/v1/messages?beta=true');
  });

  it('chooses the script of a conversation by its first user message', async () => {
    server = await startAnthropicServer((prompt) => [
      { text: prompt.includes('slugify') ? 'slug' : 'other' },
    ]);
    const content = [
      { type: 'text', text: '<system-reminder>context</system-reminder>' },
      { type: 'text', text: 'Fix slugify.' },
    ];
    const frames = events(
      await (await post({ tools, messages: [{ role: 'user', content }] })).text(),
    );
    const text = frames
      .filter((frame) => frame.event === 'content_block_delta')
      .map((frame) => (frame.data.delta as { text: string }).text)
      .join('');
    expect(text).toBe('slug');
  });

  it('answers a side request without tools apart from the script', async () => {
    server = await startAnthropicServer([
      { status: 500, error: { type: 'api_error', message: 'x' } },
    ]);
    const side = await post({ model: 'm', messages: [{ role: 'user', content: 'title?' }] });
    expect(side.status).toBe(200);
    expect(server.conversation()).toHaveLength(0);
  });

  it('answers with an API error', async () => {
    server = await startAnthropicServer([
      { status: 401, error: { type: 'authentication_error', message: 'invalid x-api-key' } },
    ]);
    const response = await post({ model: 'm', tools, messages: [] });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
    });
  });

  it('never answers a hanging turn', async () => {
    server = await startAnthropicServer([{ hang: true }]);
    const outcome = await Promise.race([
      post({ model: 'm', tools, messages: [] }).then(() => 'answered'),
      new Promise((resolve) => setTimeout(() => resolve('waiting'), 300)),
    ]);
    expect(outcome).toBe('waiting');
    expect(server.requests).toHaveLength(1);
  });
});
