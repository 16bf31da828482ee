#!/usr/bin/env node
// An OpenAI-compatible chat completions server on 127.0.0.1 that plays a model offline: asked a
// weather question, it calls get_weather for the city named; given the tool's result, it answers
// with it. `node fake-model.mjs` prints its base URL and runs until stopped.
import { createServer } from 'node:http';

/** Starts the fake model; resolves to its base URL (`…/v1`) and a `close()`. */
export async function startFakeModel() {
  let calls = 0;
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const { messages = [], model = 'gpt-4o-mini' } = JSON.parse(body || '{}');
      const toolResult = messages.find((message) => message.role === 'tool');
      const question = messages.findLast((message) => message.role === 'user')?.content ?? '';
      const text = typeof question === 'string' ? question : JSON.stringify(question);
      const city = /in ([A-Z]\w+)/.exec(text)?.[1] ?? 'Paris';
      calls++;
      const message = toolResult
        ? { role: 'assistant', content: `The weather: ${forecastOf(toolResult.content)}.` }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: `call_${calls}`,
                type: 'function',
                function: { name: 'get_weather', arguments: JSON.stringify({ city }) },
              },
            ],
          };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: `chatcmpl-${calls}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model,
          choices: [
            {
              index: 0,
              message,
              finish_reason: toolResult ? 'stop' : 'tool_calls',
            },
          ],
          usage: { prompt_tokens: 30, completion_tokens: 8, total_tokens: 38 },
        }),
      );
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

function forecastOf(content) {
  try {
    const { city, forecast } = JSON.parse(content);
    return `${forecast} in ${city}`;
  } catch {
    return String(content);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { baseUrl } = await startFakeModel();
  console.log(`OPENAI_BASE_URL=${baseUrl}`);
}
