import { afterEach, describe, expect, it } from 'vitest';
import { type GeminiServer, startGeminiServer } from './gemini-server.js';

let server: GeminiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const tools = [{ functionDeclarations: [{ name: 'run_shell_command' }] }];
const url = (method = 'streamGenerateContent?alt=sse') =>
  `${server?.origin}/v1beta/models/gemini-2.5-flash:${method}`;
const post = (body: unknown, method?: string) =>
  fetch(url(method), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const frames = async (response: Response) =>
  (await response.text())
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => JSON.parse(frame.slice('data: '.length)));

describe('the scripted Gemini API server', () => {
  it('streams a function call, then the next turn once the function response comes back', async () => {
    server = await startGeminiServer([
      { tools: [{ tool: 'run_shell_command', input: { command: 'npm test' } }] },
      { text: 'All tests pass.', usage: { input: 300, output: 12 } },
    ]);
    const user = { role: 'user', parts: [{ text: '<session_context/>' }, { text: 'go' }] };
    const first = await post({ tools, contents: [user] });
    expect(first.headers.get('content-type')).toBe('text/event-stream');
    const [call] = await frames(first);
    expect(call.candidates[0]).toMatchObject({
      content: {
        role: 'model',
        parts: [{ functionCall: { name: 'run_shell_command', args: { command: 'npm test' } } }],
      },
      finishReason: 'STOP',
    });
    const second = await frames(
      await post({
        tools,
        contents: [
          user,
          { role: 'model', parts: [{ functionCall: { name: 'run_shell_command', args: {} } }] },
          {
            role: 'user',
            parts: [{ functionResponse: { name: 'run_shell_command', response: {} } }],
          },
        ],
      }),
    );
    // The text in two pieces, so a reader that keeps only the last piece shows half an answer.
    expect(second.map((frame) => frame.candidates[0].content.parts[0]?.text).join('')).toBe(
      'All tests pass.',
    );
    expect(second).toHaveLength(3);
    expect(second.at(-1).usageMetadata).toEqual({
      promptTokenCount: 300,
      candidatesTokenCount: 12,
      totalTokenCount: 312,
    });
    expect(server.conversation()).toHaveLength(2);
  });

  it('chooses the script by the words of the prompt; a request offering no tools gets a side answer', async () => {
    server = await startGeminiServer((prompt) => [
      { text: prompt.includes('slugify') ? 'slug' : 'other' },
    ]);
    const contents = [{ role: 'user', parts: [{ text: 'Fix slugify.' }] }];
    const [, , last] = await frames(await post({ tools, contents }));
    expect(last.candidates[0].finishReason).toBe('STOP');
    // The CLI's session context lists the workspace's files: it does not choose the script.
    const listing = { text: '<session_context>\n└───slugify.js\n</session_context>' };
    const other = await frames(
      await post({
        tools,
        contents: [{ role: 'user', parts: [listing, { text: 'Count words.' }] }],
      }),
    );
    expect(other.map((frame) => frame.candidates[0].content.parts[0]?.text).join('')).toBe('other');
    const side = await post({ contents }, 'generateContent');
    const answer = (await side.json()) as { candidates: { content: { parts: unknown } }[] };
    expect(answer.candidates[0]?.content.parts).toEqual([{ text: 'Side answer.' }]);
    expect(server.conversation()).toHaveLength(2);
  });

  it('answers with the API’s errors and never answers a hanging turn', async () => {
    server = await startGeminiServer((prompt) =>
      prompt === 'hang'
        ? [{ hang: true }]
        : [{ status: 401, error: { type: 'UNAUTHENTICATED', message: 'API key not valid.' } }],
    );
    const refused = await post({ tools, contents: [{ role: 'user', parts: [{ text: 'x' }] }] });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({
      error: { code: 401, message: 'API key not valid.', status: 'UNAUTHENTICATED' },
    });
    const hanging = Promise.race([
      post({ tools, contents: [{ role: 'user', parts: [{ text: 'hang' }] }] }).then(
        () => 'answered',
      ),
      new Promise((resolve) => setTimeout(() => resolve('waiting'), 300)),
    ]);
    expect(await hanging).toBe('waiting');
    expect(server.open).toBe(1);
  });
});
