import { afterEach, describe, expect, it } from 'vitest';
import {
  type ChatCompletionsServer,
  startChatCompletionsServer,
} from './chat-completions-server.js';

let server: ChatCompletionsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const tools = [{ type: 'function', function: { name: 'bash', parameters: { type: 'object' } } }];

async function post(body: unknown): Promise<Response> {
  return fetch(`${server?.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The `data:` payloads of a server-sent event stream. */
function chunks(text: string): (Record<string, unknown> | '[DONE]')[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => frame.slice('data: '.length))
    .map((data) => (data === '[DONE]' ? '[DONE]' : JSON.parse(data)));
}

describe('the scripted chat-completions server', () => {
  it('streams a tool call in pieces, then the next turn once an assistant turn is in the request', async () => {
    server = await startChatCompletionsServer(() => [
      { shell: 'npm test' },
      { answer: 'All green.' },
    ]);
    const user = { role: 'user', content: 'run the tests' };
    const first = chunks(await (await post({ model: 'm', tools, messages: [user] })).text());
    expect(first.at(-1)).toBe('[DONE]');
    const deltas = first
      .filter((chunk): chunk is Record<string, unknown> => chunk !== '[DONE]')
      .flatMap(
        (chunk) =>
          chunk.choices as { delta: { tool_calls?: unknown[] }; finish_reason: string | null }[],
      );
    const args = deltas
      .flatMap((choice) => choice.delta.tool_calls ?? [])
      .map((call) => (call as { function: { arguments: string } }).function.arguments)
      .join('');
    expect(JSON.parse(args)).toMatchObject({ command: 'npm test' });
    expect(deltas.at(-1)?.finish_reason).toBe('tool_calls');
    // Usage comes in a last chunk without choices, as with stream_options.include_usage.
    expect(first.at(-2)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 120, completion_tokens: 30 },
    });

    const assistant = { role: 'assistant', tool_calls: [{ id: 'c', type: 'function' }] };
    const tool = { role: 'tool', tool_call_id: 'c', content: 'ok' };
    const second = chunks(
      await (await post({ model: 'm', tools, messages: [user, assistant, tool] })).text(),
    );
    const text = second
      .filter((chunk): chunk is Record<string, unknown> => chunk !== '[DONE]')
      .flatMap((chunk) => chunk.choices as { delta: { content?: string } }[])
      .map((choice) => choice.delta.content ?? '')
      .join('');
    expect(text).toBe('All green.');
    expect(server.conversation()).toHaveLength(2);
    expect(server.requests[0]?.prompt).toBe('run the tests');
  });

  it('answers a request without tools with a title, and fails with the scripted status', async () => {
    server = await startChatCompletionsServer(() => [{ status: 401, error: 'bad key' }]);
    const title = await post({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(title.status).toBe(200);
    const refused = await post({ model: 'm', tools, messages: [{ role: 'user', content: 'x' }] });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { message: 'bad key' } });
  });
});
