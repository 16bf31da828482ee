import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChatMessage, ProviderRequest, ResolvedTarget } from '@agentv/core/provider-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LlmKind } from './llm-kinds.js';
import { createLlmProviderFactory } from './llm-provider-factories.js';
import {
  anthropicReply,
  geminiReply,
  type LlmServer,
  openaiChatReply,
  type ReceivedRequest,
  type Reply,
  startLlmServer,
} from './test-support/llm-server.js';
import { providerFailure as failure } from './test-support/provider-failure.js';
import {
  bedrockConverseReply,
  deepseekReply,
  groqReply,
  mistralReply,
  OPENROUTER_COST_USD,
  openrouterReply,
  vertexReply,
  xaiReply,
} from './test-support/provider-replies.js';

const API_KEY = 'sk-test-0123456789abcdef';

const chatPrompt: ChatMessage[] = [
  { role: 'system', content: 'Answer in one word.' },
  { role: 'user', content: 'What is 2 + 2?' },
  { role: 'assistant', content: 'Four.' },
  { role: 'user', content: 'And 3 + 3?' },
];

/** What differs between the protocols, as the tests see them. */
interface KindCase {
  kind: LlmKind;
  settings(origin: string): Record<string, unknown>;
  success(text: string): Reply;
  /** The request path and query the SDK must call. */
  path: string;
  /** The header carrying the key, and the value the server must see. */
  keyHeader: [string, string];
  /** The model named in the body, for protocols that name it there rather than in the path. */
  model?: string;
  /** The messages in a received body, as `role: text`. */
  messages(body: ReceivedRequest['body']): string[];
  /** The role of the model's turns on the wire; default `assistant`. */
  assistantRole?: string;
  /** An error body of this protocol. */
  error(status: number, message: string): unknown;
  usage: Record<string, number>;
  /** Undefined when the model has no known price: the response must then have no cost. */
  costUsd?: number;
}

type Part = { text: string };
type WireMessage = { role: string; content: string | Part[] };
const joined = (parts: Part[]) => parts.map((part) => part.text).join('');
const openaiMessages = (body: ReceivedRequest['body']) =>
  body.messages.map(
    (m: WireMessage) =>
      `${m.role}: ${typeof m.content === 'string' ? m.content : joined(m.content)}`,
  );
const openaiError = (status: number, message: string) => ({
  error: {
    message,
    type: status === 401 ? 'invalid_request_error' : 'server_error',
    param: null,
    code: null,
  },
});
// All five counts, as OpenAI, Gemini and the services reporting cached and reasoning tokens give them.
const fullUsage = {
  inputTokens: 12,
  outputTokens: 5,
  totalTokens: 17,
  cachedTokens: 4,
  reasoningTokens: 0,
};
const googleMessages = (body: ReceivedRequest['body']) => [
  ...body.systemInstruction.parts.map((part: Part) => `system: ${part.text}`),
  ...body.contents.map((c: { role: string; parts: Part[] }) => `${c.role}: ${joined(c.parts)}`),
];
const googleError = (status: number, message: string) => ({
  error: { code: status, message, status: status === 401 ? 'UNAUTHENTICATED' : 'INTERNAL' },
});
/** A case of a chat completions service: what differs is the URL, the answer and the error body. */
const chatCompletions = (
  kind: LlmKind,
  model: string,
  basePath: string,
  success: (text: string) => Reply,
  error: KindCase['error'],
  usage: Record<string, number>,
  costUsd?: number,
): KindCase => ({
  kind,
  settings: (origin) => ({ model, api_key: API_KEY, base_url: `${origin}${basePath}` }),
  success,
  path: `${basePath}/chat/completions`,
  keyHeader: ['authorization', `Bearer ${API_KEY}`],
  model,
  messages: openaiMessages,
  error,
  usage,
  ...(costUsd === undefined ? {} : { costUsd }),
});

const cases: KindCase[] = [
  {
    kind: 'openai',
    settings: (origin) => ({ model: 'gpt-4o-mini', api_key: API_KEY, base_url: `${origin}/v1` }),
    success: (text) => openaiChatReply(text),
    path: '/v1/chat/completions',
    keyHeader: ['authorization', `Bearer ${API_KEY}`],
    messages: openaiMessages,
    error: openaiError,
    usage: fullUsage,
    costUsd: (12 * 0.15 + 5 * 0.6) / 1e6,
  },
  {
    kind: 'openai-compatible',
    settings: (origin) => ({
      model: 'llama3.1:8b',
      api_key: API_KEY,
      base_url: `${origin}/v1`,
      pricing: { input_per_mtok: 1, output_per_mtok: 2 },
    }),
    success: (text) => openaiChatReply(text),
    path: '/v1/chat/completions',
    keyHeader: ['authorization', `Bearer ${API_KEY}`],
    messages: openaiMessages,
    error: openaiError,
    usage: fullUsage,
    costUsd: (12 * 1 + 5 * 2) / 1e6,
  },
  {
    kind: 'azure',
    // An AgentV 1.x target: `endpoint`, `model` as the deployment, `version`.
    settings: (origin) => ({
      endpoint: origin,
      api_key: API_KEY,
      model: 'gpt-4o-mini',
      version: '2024-10-21',
    }),
    success: (text) => openaiChatReply(text),
    path: '/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-10-21',
    keyHeader: ['api-key', API_KEY],
    messages: openaiMessages,
    error: (status, message) => ({ error: { code: String(status), message } }),
    usage: fullUsage,
    costUsd: (12 * 0.15 + 5 * 0.6) / 1e6,
  },
  {
    kind: 'anthropic',
    settings: (origin) => ({
      model: 'claude-3-5-haiku-latest',
      api_key: API_KEY,
      base_url: `${origin}/v1`,
    }),
    success: (text) => anthropicReply(text),
    path: '/v1/messages',
    keyHeader: ['x-api-key', API_KEY],
    messages: (body) => [
      ...body.system.map((part: Part) => `system: ${part.text}`),
      ...body.messages.map(
        (m: { role: string; content: Part[] }) => `${m.role}: ${joined(m.content)}`,
      ),
    ],
    error: (status, message) => ({
      type: 'error',
      error: { type: status === 401 ? 'authentication_error' : 'api_error', message },
    }),
    usage: { inputTokens: 12, outputTokens: 5, totalTokens: 17, cachedTokens: 4 },
    costUsd: (12 * 0.8 + 5 * 4) / 1e6,
  },
  {
    kind: 'gemini',
    settings: (origin) => ({
      model: 'gemini-2.5-flash',
      api_key: API_KEY,
      base_url: `${origin}/v1beta`,
    }),
    success: (text) => geminiReply(text),
    path: '/v1beta/models/gemini-2.5-flash:generateContent',
    keyHeader: ['x-goog-api-key', API_KEY],
    messages: googleMessages,
    assistantRole: 'model',
    error: googleError,
    usage: fullUsage,
    costUsd: (12 * 0.3 + 5 * 2.5) / 1e6,
  },
  {
    kind: 'bedrock',
    // A Bedrock API key; signing with access keys is tested below.
    settings: (origin) => ({
      model: 'amazon.nova-lite-v1:0',
      api_key: API_KEY,
      region: 'us-east-1',
      base_url: origin,
    }),
    success: (text) => bedrockConverseReply(text),
    path: '/model/amazon.nova-lite-v1%3A0/converse',
    keyHeader: ['authorization', `Bearer ${API_KEY}`],
    messages: (body) => [
      ...body.system.map((part: Part) => `system: ${part.text}`),
      ...body.messages.map(
        (m: { role: string; content: Part[] }) => `${m.role}: ${joined(m.content)}`,
      ),
    ],
    error: (_status, message) => ({ message }),
    // Bedrock's input count leaves out cached tokens; the SDK adds them back.
    usage: { inputTokens: 12, outputTokens: 5, totalTokens: 17, cachedTokens: 4 },
  },
  {
    kind: 'vertex',
    // Express mode (an API key); a project with Google's default credentials is tested below.
    settings: (origin) => ({
      model: 'gemini-2.5-flash',
      api_key: API_KEY,
      base_url: `${origin}/v1`,
    }),
    success: (text) => vertexReply(text),
    path: '/v1/publishers/google/models/gemini-2.5-flash:generateContent',
    keyHeader: ['x-goog-api-key', API_KEY],
    messages: googleMessages,
    assistantRole: 'model',
    error: googleError,
    usage: fullUsage,
    // Vertex lists Gemini at the Gemini API's prices.
    costUsd: (12 * 0.3 + 5 * 2.5) / 1e6,
  },
  chatCompletions(
    'mistral',
    'mistral-large-latest',
    '/v1',
    mistralReply,
    (status, message) => ({
      object: 'error',
      message,
      type: status === 401 ? 'invalid_api_key' : 'internal_server_error',
      param: null,
      code: String(status),
    }),
    { inputTokens: 12, outputTokens: 5, totalTokens: 17 },
  ),
  chatCompletions(
    'groq',
    'llama-3.3-70b-versatile',
    '/openai/v1',
    groqReply,
    (status, message) => ({
      error: {
        message,
        type: status === 401 ? 'invalid_request_error' : 'internal_server_error',
        code: status === 401 ? 'invalid_api_key' : null,
      },
    }),
    { inputTokens: 12, outputTokens: 5, totalTokens: 17, cachedTokens: 4 },
  ),
  chatCompletions(
    'xai',
    'grok-4',
    '/v1',
    xaiReply,
    // xAI's errors are `{code, error}` with the message in `error`.
    (status, message) => ({
      code: status === 401 ? 'Client specified an invalid argument' : 'Internal error',
      error: message,
    }),
    // Reasoning tokens are output tokens too.
    { inputTokens: 12, outputTokens: 8, totalTokens: 20, cachedTokens: 4, reasoningTokens: 3 },
  ),
  chatCompletions(
    'deepseek',
    'deepseek-chat',
    '',
    deepseekReply,
    (status, message) => ({
      error: {
        message,
        type: status === 401 ? 'authentication_error' : 'api_error',
        param: null,
        code: 'invalid_request_error',
      },
    }),
    fullUsage,
  ),
  chatCompletions(
    'openrouter',
    'openai/gpt-4o-mini',
    '/api/v1',
    openrouterReply,
    (status, message) => ({ error: { message, code: status } }),
    fullUsage,
    // What OpenRouter says the call cost, not the table's price of gpt-4o-mini.
    OPENROUTER_COST_USD,
  ),
];

function request(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    evalCaseId: 'case-1',
    attempt: 0,
    question: 'What is 2 + 2?',
    chatPrompt,
    guidelines: '',
    guidelineFiles: [],
    inputFiles: [],
    ...overrides,
  };
}

function target(kind: LlmKind, settings: Record<string, unknown>): ResolvedTarget {
  return {
    name: 'llm',
    provider: kind,
    settings,
    secretValues: [API_KEY],
    filePath: '/project/.agentv/targets.yaml',
    baseDir: '/project',
  };
}

describe.each(cases)('$kind provider against a local server', (kindCase) => {
  let server: LlmServer;
  let cacheDir: string;
  const create = (
    extra: { cacheDir?: string; timeoutSeconds?: number; maxOutputBytes?: number } = {},
  ) => {
    const factory = createLlmProviderFactory(kindCase.kind);
    const resolved = target(kindCase.kind, kindCase.settings(server.origin));
    if (extra.timeoutSeconds !== undefined) resolved.timeoutSeconds = extra.timeoutSeconds;
    if (extra.maxOutputBytes !== undefined) resolved.maxOutputBytes = extra.maxOutputBytes;
    expect(factory.validate?.(resolved)).toEqual([]);
    return factory.create(resolved, { cacheDir: extra.cacheDir });
  };

  beforeEach(async () => {
    server = await startLlmServer(() => kindCase.success('Six.'));
    cacheDir = await mkdtemp(path.join(tmpdir(), 'agentv-llm-cache-'));
  });
  afterEach(async () => {
    await server.close();
    await rm(cacheDir, { recursive: true, force: true });
  });

  it('sends the chat prompt as structured messages and reports text, usage, cost and duration', async () => {
    const response = await create().invoke(request());

    expect(response.text).toBe('Six.');
    expect(response.usage).toEqual(kindCase.usage);
    if (kindCase.costUsd === undefined) expect(response.costUsd).toBeUndefined();
    else expect(response.costUsd).toBeCloseTo(kindCase.costUsd, 12);
    expect(response.durationMs).toBeGreaterThanOrEqual(0);
    expect(response.cached).toBeUndefined();

    expect(server.requests).toHaveLength(1);
    const received = server.requests[0]!;
    expect(received.method).toBe('POST');
    expect(received.url).toBe(kindCase.path);
    expect(received.headers[kindCase.keyHeader[0]]).toBe(kindCase.keyHeader[1]);
    if (kindCase.model !== undefined) expect(received.body.model).toBe(kindCase.model);
    expect(kindCase.messages(received.body)).toEqual([
      'system: Answer in one word.',
      'user: What is 2 + 2?',
      `${kindCase.assistantRole ?? 'assistant'}: Four.`,
      'user: And 3 + 3?',
    ]);
  });

  it('reports its usage and cost through onUsage once the answer is in, and still answers when that crosses a budget', async () => {
    const reported: [unknown, unknown][] = [];
    const budget = new AbortController();
    const response = await create().invoke(
      request({
        signal: budget.signal,
        onUsage: (usage, costUsd) => {
          reported.push([usage, costUsd]);
          // The case's budget guard aborts here: the one model request is already answered.
          budget.abort(new Error('the case went over its budget'));
        },
      }),
    );
    expect(reported).toEqual([[kindCase.usage, response.costUsd]]);
    expect(response.text).toBe('Six.');
    expect(server.requests).toHaveLength(1);
  });

  it('makes a 429 retryable with the Retry-After delay, and the next call succeeds', async () => {
    server.queue({
      status: 429,
      headers: { 'retry-after': '2' },
      body: kindCase.error(429, 'Rate limit reached, please retry later.'),
    });
    const provider = create();

    const error = await failure(provider.invoke(request()));
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBe(2000);
    expect(error.message).toContain('HTTP 429');
    expect(error.message).toContain('Rate limit reached');

    const response = await provider.invoke(request({ attempt: 1 }));
    expect(response.text).toBe('Six.');
    // The SDK's own retries are off: one request per call.
    expect(server.requests).toHaveLength(2);
  });

  it('fails a 401 at once, in one line, with a hint and without the key', async () => {
    server.queue({
      status: 401,
      body: kindCase.error(
        401,
        `Incorrect API key provided: ${API_KEY.slice(0, 3)}***************${API_KEY.slice(-4)} (full: ${API_KEY})`,
      ),
    });

    const error = await failure(create().invoke(request()));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(
      new RegExp(`^${kindCase.kind} target "llm": HTTP 401: Incorrect API key provided`),
    );
    expect(error.message).not.toContain('\n');
    expect(error.message).not.toContain(API_KEY);
    expect(error.message).not.toContain(API_KEY.slice(-4));
    expect(error.hint).toMatch(/^check [A-Z_]+: .* refused the api_key of target "llm"$/);
    expect(JSON.stringify(error.details ?? {})).not.toContain(API_KEY);
    expect(server.requests).toHaveLength(1);
  });

  it('makes a connection reset while the answer is read retryable, and logs the failed attempt', async () => {
    server.queue({ ...kindCase.success('Six.'), cutMidBody: true });
    const lines: string[] = [];
    const factory = createLlmProviderFactory(kindCase.kind);
    const provider = factory.create(target(kindCase.kind, kindCase.settings(server.origin)), {
      verbose: true,
      log: (line) => lines.push(line),
    });

    const error = await failure(provider.invoke(request()));
    expect(error.retryable).toBe(true);
    expect(error.message).toBe(
      `${kindCase.kind} target "llm": the connection to the API at ${new URL(server.origin).host} broke while the answer was read: UND_ERR_SOCKET (other side closed)`,
    );
    expect(error.hint).toMatch(/^check the network between AgentV and /);
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^\\[${kindCase.kind}:llm\\] case-1 attempt 1: failed after \\d+ ms: ${kindCase.kind} target "llm": the connection to the API`,
        ),
      ),
    ]);

    // The next attempt is answered.
    const response = await provider.invoke(request({ attempt: 1 }));
    expect(response.text).toBe('Six.');
    expect(lines[1]).toMatch(/^\[.*\] case-1 attempt 2: .* answered in \d+ ms/);
  });

  it('makes a 500 retryable', async () => {
    server.queue({ status: 500, body: kindCase.error(500, 'The server had an error.') });

    const error = await failure(create().invoke(request()));
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('HTTP 500: The server had an error.');
    expect(server.requests).toHaveLength(1);
  });

  it('aborts a response past max_output_bytes without a retry, and reads one below it whole', async () => {
    const long = 'x'.repeat(100 * 1024);
    server.queue(kindCase.success(long));
    const error = await failure(create({ maxOutputBytes: 64 * 1024 }).invoke(request()));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(
      new RegExp(
        `^${kindCase.kind} target "llm": the response passed max_output_bytes \\(64 KiB\\) after [\\d.]+ KiB; the request was aborted$`,
      ),
    );
    expect(error.hint).toContain('raise max_output_bytes on the target');

    server.queue(kindCase.success(long));
    expect((await create({ maxOutputBytes: 128 * 1024 }).invoke(request())).text).toBe(long);
  });

  it('answers a repeated call from the disk cache without calling the server', async () => {
    const first = await create({ cacheDir }).invoke(request());
    // A new provider, as in a second run: the cache is on disk.
    const second = await create({ cacheDir }).invoke(request());

    expect(server.requests).toHaveLength(1);
    expect(second.text).toBe(first.text);
    expect(second.usage).toEqual(first.usage);
    expect(second.cached).toBe(true);
    expect(second.costUsd).toBeUndefined();

    // Different messages are a different entry.
    await create({ cacheDir }).invoke(request({ chatPrompt: chatPrompt.slice(0, 2) }));
    expect(server.requests).toHaveLength(2);
    const files = await readdir(path.join(cacheDir, 'llm'), { recursive: true });
    expect(files.filter((file) => file.endsWith('.json'))).toHaveLength(2);
    expect(files.filter((file) => file.endsWith('.tmp'))).toHaveLength(0);
  });
});

describe('LLM provider failures without an HTTP answer', () => {
  it('makes an unreachable server a retryable error naming the host', async () => {
    const server = await startLlmServer(() => openaiChatReply('x'));
    const origin = server.origin;
    await server.close();
    const provider = createLlmProviderFactory('openai-compatible').create(
      target('openai-compatible', { model: 'llama3.1', base_url: `${origin}/v1` }),
      {},
    );

    const error = await failure(provider.invoke(request()));
    expect(error.retryable).toBe(true);
    expect(error.message).toContain(`could not reach the API at ${new URL(origin).host}`);
  });

  it('gives up after timeout_seconds with a retryable error', async () => {
    const server = await startLlmServer(() => ({ ...openaiChatReply('late'), delayMs: 5000 }));
    try {
      const resolved = target('openai', {
        model: 'gpt-4o-mini',
        api_key: API_KEY,
        base_url: `${server.origin}/v1`,
      });
      resolved.timeoutSeconds = 0.2;
      const provider = createLlmProviderFactory('openai').create(resolved, {});

      const error = await failure(provider.invoke(request()));
      expect(error.retryable).toBe(true);
      expect(error.message).toBe('openai target "llm": no answer within 0.2 s');
    } finally {
      await server.close();
    }
  });

  it('stops when the run is interrupted, with the run signal reason', async () => {
    const server = await startLlmServer(() => ({ ...openaiChatReply('late'), delayMs: 5000 }));
    try {
      const provider = createLlmProviderFactory('openai').create(
        target('openai', {
          model: 'gpt-4o-mini',
          api_key: API_KEY,
          base_url: `${server.origin}/v1`,
        }),
        {},
      );
      const controller = new AbortController();
      const reason = new Error('run interrupted by SIGINT');
      setTimeout(() => controller.abort(reason), 50);

      await expect(provider.invoke(request({ signal: controller.signal }))).rejects.toBe(reason);
    } finally {
      await server.close();
    }
  });
});

describe("a service's reported cost", () => {
  it("gives way to the target's own pricing", async () => {
    const server = await startLlmServer(() => openrouterReply('Six.'));
    try {
      const settings = {
        model: 'openai/gpt-4o-mini',
        api_key: API_KEY,
        base_url: `${server.origin}/api/v1`,
        pricing: { input_per_mtok: 1, output_per_mtok: 2 },
      };
      const response = await createLlmProviderFactory('openrouter')
        .create(target('openrouter', settings), {})
        .invoke(request());

      expect(response.costUsd).toBeCloseTo((12 * 1 + 5 * 2) / 1e6, 12);
      // OpenRouter was asked to report usage with its cost.
      expect(server.requests[0]!.body.usage).toEqual({ include: true });
    } finally {
      await server.close();
    }
  });
});
