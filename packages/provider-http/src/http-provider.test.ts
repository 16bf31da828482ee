import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isProviderError, type ProviderError } from '@agentv/core/provider-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpProvider, httpProviderFactory } from './http-provider.js';
import { parseHttpSettings } from './http-settings.js';
import { type AgentServer, startAgentServer } from './test-support/agent-server.js';
import { makeRequest } from './test-support/make-request.js';
import { makeTarget } from './test-support/make-target.js';

let server: AgentServer;
afterEach(async () => {
  await server?.close();
});

const TOKEN = 'tok-secret-0123456789';

/** A provider for a target on the test server; `settings` override the defaults. */
function provider(
  settings: Record<string, unknown> = {},
  common = {},
  log?: (line: string) => void,
) {
  const target = makeTarget(
    {
      url: `${server.origin}/chat`,
      headers: { Authorization: `Bearer ${TOKEN}` },
      body: { question: '{PROMPT}', case: '{EVAL_ID}' },
      response_path: 'data.answer',
      ...settings,
    },
    common,
  );
  return httpProviderFactory.create(target, {
    ...(log ? { verbose: true, log } : {}),
  });
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isProviderError(error)) throw new Error(`expected a ProviderError, got ${String(error)}`);
  return error;
}

const TRACE = [
  { type: 'tool_call', timestamp: '2025-01-01T00:00:00Z', name: 'lookup_order', input: { id: 42 } },
  {
    type: 'tool_result',
    timestamp: '2025-01-01T00:00:01Z',
    name: 'lookup_order',
    output: 'shipped',
  },
  { type: 'not-an-event' },
];

describe('http provider', () => {
  it('answers from response_path with the trace, output messages and usage the paths name', async () => {
    server = await startAgentServer();
    server.queue({
      body: {
        data: { answer: 'Your refund is on its way.', steps: TRACE },
        messages: [{ role: 'assistant', content: 'Your refund is on its way.' }],
        meta: { usage: { input_tokens: 30, output_tokens: 8 } },
      },
    });
    const response = await provider({
      trace_path: 'data.steps',
      output_messages_path: 'messages',
      usage_path: 'meta.usage',
    }).invoke(makeRequest());

    expect(response.text).toBe('Your refund is on its way.');
    expect(response.trace).toEqual([TRACE[0], { ...TRACE[1], output: 'shipped' }]);
    expect(response.outputMessages).toEqual([
      { role: 'assistant', content: 'Your refund is on its way.' },
    ]);
    expect(response.usage).toEqual({ inputTokens: 30, outputTokens: 8 });
    expect(response.raw).toMatchObject({ method: 'POST', status: 200 });
    expect(response.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('sends the body as JSON with placeholders replaced and values escaped by serialisation', async () => {
    server = await startAgentServer();
    const question = 'Say "hi" \\ then\nnew line {EVAL_ID}';
    await provider({
      body: {
        question: '{PROMPT}',
        prefixed: 'case {EVAL_ID}, try {ATTEMPT}',
        attempt: '{ATTEMPT}',
        repeat: '{REPEAT}',
        literal: 'keep {{PROMPT}} as written',
        nested: { messages: '{INPUT_MESSAGES}', files: ['{FILES}', '{ATTACHMENTS}'] },
        input: '{INPUT}',
        fixed: 3,
        flag: true,
      },
    }).invoke(makeRequest({ question, attempt: 1, repeat: 2, expectedOutcome: 'refund' }));

    const [request] = server.requests;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('/chat');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    // The raw text is valid JSON: quotes, backslashes and newlines are escaped, nothing shell-quoted.
    expect(request!.text).toContain('"Say \\"hi\\" \\\\ then\\nnew line {EVAL_ID}"');
    expect(JSON.parse(request!.text)).toEqual({
      question,
      prefixed: 'case refund-1, try 1',
      attempt: 1,
      repeat: 2,
      literal: 'keep {PROMPT} as written',
      nested: {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: question },
        ],
        files: [['/project/guide.md', '/project/order.json'], ['/project/order.json']],
      },
      input: {
        id: 'refund-1',
        question,
        guidelines: 'Be brief.',
        guideline_files: ['/project/guide.md'],
        input_files: ['/project/order.json'],
        input_messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: question },
        ],
        expected_outcome: 'refund',
      },
      fixed: 3,
      flag: true,
    });
  });

  it('sends the method and headers it is given, and no body without one', async () => {
    server = await startAgentServer();
    server.queue({ body: { data: { answer: 'pong' } } });
    const response = await provider({
      method: 'get',
      body: undefined,
      headers: { 'X-Api-Key': TOKEN, Accept: 'application/vnd.agent+json' },
    }).invoke(makeRequest());
    expect(response.text).toBe('pong');
    const [request] = server.requests;
    expect(request!.method).toBe('GET');
    expect(request!.text).toBe('');
    expect(request!.headers['x-api-key']).toBe(TOKEN);
    expect(request!.headers.accept).toBe('application/vnd.agent+json');
    expect(request!.headers['content-type']).toBeUndefined();
  });

  it("sends the call's traceparent for a target with trace: { source: otlp }, and none without", async () => {
    server = await startAgentServer();
    server.queue({ body: { data: { answer: 'one' } } }, { body: { data: { answer: 'two' } } });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const traced = provider();
    await traced.invoke({ ...makeRequest(), traceContext: { traceparent, env: {} } });
    await traced.invoke(makeRequest());
    expect(server.requests.map((request) => request.headers.traceparent)).toEqual([
      traceparent,
      undefined,
    ]);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('turns an answer that is not a string into its JSON text', async () => {
    server = await startAgentServer();
    server.queue({ body: { data: { answer: { amount: 20 } } } });
    expect((await provider().invoke(makeRequest())).text).toBe('{"amount":20}');
  });

  it('reads array indexes in paths', async () => {
    server = await startAgentServer();
    server.queue({ body: { choices: [{ text: 'first' }, { text: 'second' }] } });
    const response = await provider({ response_path: 'choices.1.text' }).invoke(makeRequest());
    expect(response.text).toBe('second');
  });

  it('fails with a retryable error on HTTP 500, and the next attempt succeeds', async () => {
    server = await startAgentServer();
    server.queue({ status: 500, body: { error: 'database restarting' } });
    server.queue({ body: { data: { answer: 'recovered' } } });
    const agent = provider();
    const error = await failure(agent.invoke(makeRequest()));
    expect(error.retryable).toBe(true);
    expect(error.details).toEqual({ status: 500 });
    expect(error.message).toBe(
      `http target "agent": POST ${server.origin}/chat returned HTTP 500: {"error":"database restarting"}`,
    );
    expect((await agent.invoke(makeRequest({ attempt: 1 }))).text).toBe('recovered');
    expect(server.requests).toHaveLength(2);
  });

  it('reads how long to wait from Retry-After on 429, in seconds or as an HTTP date', async () => {
    server = await startAgentServer();
    server.queue({ status: 429, headers: { 'Retry-After': '2' }, body: { error: 'slow down' } });
    const seconds = await failure(provider().invoke(makeRequest()));
    expect(seconds.retryable).toBe(true);
    expect(seconds.retryAfterMs).toBe(2000);
    expect(seconds.message).toContain('returned HTTP 429');

    const date = new Date(Date.now() + 30_000).toUTCString();
    server.queue({ status: 429, headers: { 'Retry-After': date }, body: {} });
    const dated = await failure(provider().invoke(makeRequest()));
    expect(dated.retryAfterMs).toBeGreaterThan(25_000);
    expect(dated.retryAfterMs).toBeLessThanOrEqual(30_000);
  });

  it('does not retry other 4xx statuses, naming the status and an excerpt of the body, secrets masked', async () => {
    server = await startAgentServer();
    server.queue({
      status: 401,
      body: { error: `token Bearer ${TOKEN} is not valid`, pad: 'x'.repeat(500) },
    });
    const error = await failure(provider().invoke(makeRequest()));
    expect(error.retryable).toBe(false);
    expect(error.details).toEqual({ status: 401 });
    expect(error.message).toContain('returned HTTP 401: {"error":"token *** is not valid"');
    expect(error.message).not.toContain(TOKEN);
    expect(error.message.length).toBeLessThan(320);
    expect(error.hint).toContain('headers');
  });

  it('stops a call at timeout_seconds with a retryable error', async () => {
    server = await startAgentServer();
    server.queue({ delayMs: 5000, body: { data: { answer: 'too late' } } });
    const error = await failure(provider({}, { timeoutSeconds: 0.3 }).invoke(makeRequest()));
    expect(error.retryable).toBe(true);
    expect(error.message).toBe(
      `http target "agent": POST ${server.origin}/chat: no answer within 0.3 s`,
    );
    expect(error.hint).toContain('timeout_seconds');
  });

  it('--agent-timeout wins over timeout_seconds, and the hint names only the flag', async () => {
    server = await startAgentServer();
    server.queue({ delayMs: 5000, body: {} });
    const target = makeTarget(
      { url: `${server.origin}/chat`, response_path: 'a' },
      { timeoutSeconds: 60 },
    );
    const agent = httpProviderFactory.create(target, { defaultTimeoutSeconds: 0.2 });
    const error = await failure(agent.invoke(makeRequest()));
    expect(error.message).toBe(
      `http target "agent": POST ${server.origin}/chat: no answer within 0.2 s`,
    );
    expect(error.hint).toBe("raise --agent-timeout (it wins over the target's timeout_seconds)");
  });

  it('uses the run default timeout when the target sets none', async () => {
    server = await startAgentServer();
    server.queue({ delayMs: 5000, body: {} });
    const target = makeTarget({ url: `${server.origin}/chat`, response_path: 'a' });
    const agent = httpProviderFactory.create(target, { defaultTimeoutSeconds: 0.2 });
    expect((await failure(agent.invoke(makeRequest()))).message).toContain(
      'no answer within 0.2 s',
    );
  });

  it('fails clearly, without retrying, on a body that is not JSON', async () => {
    server = await startAgentServer();
    server.queue({ body: '<html><body>Welcome to nginx!</body></html>' });
    const error = await failure(provider().invoke(makeRequest()));
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(
      `http target "agent": POST ${server.origin}/chat answered with a body that is not JSON: <html><body>Welcome to nginx!</body></html>`,
    );
    expect(error.hint).toContain('JSON');
  });

  it('names the response_path that matched nothing and the keys that exist where it stopped', async () => {
    server = await startAgentServer();
    server.queue({ body: { data: { result: 'x', id: 7 } } });
    const error = await failure(provider().invoke(makeRequest()));
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(
      `http target "agent": POST ${server.origin}/chat: response_path "data.answer" matched nothing: "data" has no key "answer"; its keys are "result", "id"`,
    );
    expect(error.hint).toContain('response_path');

    server.queue({ body: { choices: [] } });
    const indexed = await failure(
      provider({ response_path: 'choices.0.text' }).invoke(makeRequest()),
    );
    expect(indexed.message).toContain(
      'response_path "choices.0.text" matched nothing: "choices" is an array of 0, so index 0 does not exist',
    );
  });

  it('fails when trace_path matches nothing or is not a list', async () => {
    server = await startAgentServer();
    server.queue({ body: { data: { answer: 'a' } } });
    const missing = await failure(provider({ trace_path: 'trace' }).invoke(makeRequest()));
    expect(missing.message).toContain(
      'trace_path "trace" matched nothing: the response has no key "trace"; its keys are "data"',
    );
    server.queue({ body: { data: { answer: 'a' }, trace: 'none' } });
    const wrong = await failure(provider({ trace_path: 'trace' }).invoke(makeRequest()));
    expect(wrong.message).toContain('trace_path "trace" is not a list of trace events');
  });

  it('keeps the valid events of trace_path and names the ones it leaves out', async () => {
    server = await startAgentServer();
    const steps = [TRACE[0], { type: 'tool_call', name: 'search' }];
    server.queue({ body: { data: { answer: 'a' }, steps } });
    const response = await provider({ trace_path: 'steps' }).invoke(makeRequest());
    expect(response.trace).toEqual([TRACE[0]]);
    expect(response.warnings).toEqual([
      'trace event 2 (tool_call "search") left out: timestamp is missing',
    ]);
  });

  it('fails with a retryable error when nothing listens', async () => {
    server = await startAgentServer();
    const origin = server.origin;
    await server.close();
    const error = await failure(provider({ url: `${origin}/chat` }).invoke(makeRequest()));
    expect(error.retryable).toBe(true);
    expect(error.message).toContain(`POST ${origin}/chat failed: ECONNREFUSED`);
    expect(error.hint).toContain(`check that the server at ${origin} is running`);
  });

  it('logs calls under --verbose with header values masked', async () => {
    server = await startAgentServer();
    server.queue({ body: { data: { answer: 'a' } } });
    const lines: string[] = [];
    await provider({}, {}, (line) => lines.push(line)).invoke(makeRequest());
    // Every line names the case and the attempt, counted from 1.
    expect(lines[0]).toBe(`[http:agent] refund-1 attempt 1: POST ${server.origin}/chat`);
    expect(lines[1]).toMatch(/^\[http:agent\] refund-1 attempt 1 headers: .*Authorization: \*\*\*/);
    expect(lines[2]).toMatch(/^\[http:agent\] refund-1 attempt 1 HTTP 200 after \d+ ms$/);
    expect(lines.join('\n')).not.toContain(TOKEN);
  });

  it('masks the values of environment variables in the URL', async () => {
    server = await startAgentServer();
    server.queue({ status: 404, body: 'not here' });
    const key = 'query-secret-key';
    const agent = provider({ url: `${server.origin}/chat?key=${key}` }, { secretValues: [key] });
    const error = await failure(agent.invoke(makeRequest()));
    expect(error.message).toContain('/chat?key=*** returned HTTP 404: not here');
    expect(error.hint).toContain('url');
  });

  it('does not send a request once the run was interrupted', async () => {
    server = await startAgentServer();
    const error = await failure(provider().invoke(makeRequest({ signal: AbortSignal.abort() })));
    expect(error.retryable).toBe(false);
    expect(server.requests).toHaveLength(0);
  });
});

describe('http health check', () => {
  it('passes on the expected status, sending the target headers', async () => {
    server = await startAgentServer(() => ({ status: 204 }));
    const agent = provider({
      healthcheck: { url: `${server.origin}/health`, expect_status: [200, 204] },
    });
    await agent.healthcheck!();
    expect(server.requests.map((request) => [request.method, request.url])).toEqual([
      ['GET', '/health'],
    ]);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('fails with what was probed and the status it got', async () => {
    server = await startAgentServer(() => ({ status: 503, body: {} }));
    const agent = provider({ healthcheck: { url: `${server.origin}/health` } });
    const error = await failure(agent.healthcheck!());
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(`GET ${server.origin}/health returned HTTP 503 (expected 2xx)`);
  });

  it('is absent without healthcheck settings', () => {
    server = undefined as unknown as AgentServer;
    const agent = createHttpProvider(
      parseHttpSettings(makeTarget({ url: 'http://127.0.0.1:9/x', response_path: 'a' })),
      { targetName: 'agent' },
    );
    expect(agent.healthcheck).toBeUndefined();
    expect(agent.id).toBe('http:agent');
    expect(agent.kind).toBe('http');
  });
});

describe('http provider on a port fetch blocks', () => {
  it('says so without retrying', async () => {
    server = undefined as unknown as AgentServer;
    const target = makeTarget({ url: 'http://127.0.0.1:9/chat', response_path: 'a' });
    const error = await failure(httpProviderFactory.create(target, {}).invoke(makeRequest()));
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(
      'http target "agent": POST http://127.0.0.1:9/chat failed: fetch refuses the port of this URL',
    );
  });
});

describe('http provider max_output_bytes', () => {
  it('reads a body up to max_output_bytes, and aborts a longer one without a retry', async () => {
    server = await startAgentServer();
    const answer = (size: number) => ({ body: { data: { answer: 'x'.repeat(size) } } });
    // {"data":{"answer":"..."}} adds 22 bytes around the answer.
    server.queue(answer(4096 - 22), answer(4096 - 21));
    const limited = provider({}, { maxOutputBytes: 4096 });
    expect((await limited.invoke(makeRequest())).text).toHaveLength(4096 - 22);
    const error = await failure(limited.invoke(makeRequest()));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(
      /^http target "agent": POST http:\/\/127\.0\.0\.1:\d+\/chat: the response body passed max_output_bytes \(4 KiB\) after 4\.0 KiB; the request was aborted$/,
    );
    expect(error.hint).toContain('raise max_output_bytes on the target');
  });

  it('closes the connection of an endless body once it passes max_output_bytes', async () => {
    let closed: () => void = () => {};
    const connectionClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const endless = createServer((_, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"data": {"answer": "');
      const chunk = 'y'.repeat(64 * 1024);
      const more = () => {
        while (response.write(chunk)) {}
      };
      response.on('drain', more);
      response.on('close', closed);
      more();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = endless.address() as AddressInfo;
      const target = makeTarget(
        { url: `http://127.0.0.1:${port}/chat`, response_path: 'data.answer' },
        { maxOutputBytes: 1024 * 1024 },
      );
      const error = await failure(httpProviderFactory.create(target, {}).invoke(makeRequest()));
      expect(error.message).toContain('the response body passed max_output_bytes (1 MiB)');
      await connectionClosed;
    } finally {
      endless.closeAllConnections();
      await new Promise((resolve) => endless.close(resolve));
    }
  });
});
