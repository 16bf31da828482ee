import { chatReply, type LlmReply, type LlmRequest } from './llm-servers.js';

// The wire formats of the LLM services that `provider-llm` reaches through their own AI SDK
// packages, as each service sends them: enough for a local server to stand in for the service.

/** One service as a local server speaks it, and the target that reaches it. */
export interface LlmProtocol {
  /** The target's `provider:`. */
  kind: string;
  /** The variable the target's `api_key: ${{ VAR }}` reads (from `.env`). */
  keyVariable: string;
  model: string;
  /** The target's settings besides name, provider, model and api_key, given the server's URL. */
  settings(url: string): Record<string, string>;
  /** The path and query the service is called at. */
  path: string;
  /** The header carrying the key, and its value for `key`. */
  auth(key: string): [string, string];
  /** The text of the last user message of a request. */
  question(request: LlmRequest): string;
  success(text: string): LlmReply;
  /** An error answer of this service. */
  error(status: number, message: string, headers?: Record<string, string>): LlmReply;
  /** The token counts its answers report, as the result line records them. */
  usage: { input_tokens: number; output_tokens: number };
  /** The result line's `cost_usd`; undefined where the model's price is not known. */
  costUsd?: number;
}

type Part = { text?: string };
const partsText = (content: unknown) =>
  typeof content === 'string' ? content : (content as Part[]).map((part) => part.text).join('');
const lastUser = (messages: { role: string; content?: unknown; parts?: unknown }[]) => {
  const user = messages.filter((message) => message.role === 'user').at(-1);
  return user ? partsText(user.content ?? user.parts) : '';
};

/** A chat completions answer of `model` (40 prompt and 12 completion tokens), with the service's own `usage` and body fields. */
function chatCompletion(
  model: string,
  text: string,
  usage: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): LlmReply {
  const reply = chatReply(text, { prompt: 40, completion: 12 });
  const body = reply.body as { usage: Record<string, unknown> };
  return { ...reply, body: { ...body, model, usage: { ...body.usage, ...usage }, ...extra } };
}

const OPENROUTER_COST_USD = 0.0000089;

const json = (status: number, body: unknown, headers?: Record<string, string>): LlmReply => ({
  status,
  body,
  ...(headers ? { headers } : {}),
});

/** A service speaking chat completions at `basePath`, with a bearer key. */
function chatProtocol(
  kind: string,
  keyVariable: string,
  model: string,
  basePath: string,
  success: (text: string) => LlmReply,
  error: (status: number, message: string) => unknown,
): LlmProtocol {
  return {
    kind,
    keyVariable,
    model,
    settings: (url) => ({ base_url: `${url}${basePath}` }),
    path: `${basePath}/chat/completions`,
    auth: (key) => ['authorization', `Bearer ${key}`],
    question: (request) => lastUser(request.body.messages),
    success,
    error: (status, message, headers) => json(status, error(status, message), headers),
    usage: { input_tokens: 40, output_tokens: 12 },
  };
}

const openaiStyleError = (status: number, message: string) => ({
  error: { message, type: status === 401 ? 'invalid_request_error' : 'server_error', code: null },
});

export const LLM_PROTOCOLS: readonly LlmProtocol[] = [
  {
    kind: 'bedrock',
    keyVariable: 'AWS_BEARER_TOKEN_BEDROCK',
    model: 'amazon.nova-lite-v1:0',
    settings: (url) => ({ region: 'us-east-1', base_url: url }),
    path: '/model/amazon.nova-lite-v1%3A0/converse',
    auth: (key) => ['authorization', `Bearer ${key}`],
    question: (request) => lastUser(request.body.messages),
    success: (text) =>
      json(200, {
        output: { message: { role: 'assistant', content: [{ text }] } },
        stopReason: 'end_turn',
        usage: { inputTokens: 40, outputTokens: 12, totalTokens: 52 },
        metrics: { latencyMs: 210 },
      }),
    error: (_status, message, headers) => json(_status, { message }, headers),
    usage: { input_tokens: 40, output_tokens: 12 },
  },
  {
    kind: 'vertex',
    keyVariable: 'GOOGLE_VERTEX_API_KEY',
    model: 'gemini-2.5-flash',
    settings: (url) => ({ base_url: `${url}/v1` }),
    path: '/v1/publishers/google/models/gemini-2.5-flash:generateContent',
    auth: (key) => ['x-goog-api-key', key],
    question: (request) => lastUser(request.body.contents),
    success: (text) =>
      json(200, {
        candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP' }],
        usageMetadata: {
          promptTokenCount: 40,
          candidatesTokenCount: 12,
          totalTokenCount: 52,
          trafficType: 'ON_DEMAND',
        },
        modelVersion: 'gemini-2.5-flash',
        responseId: 'vtx-e2e',
      }),
    error: (status, message, headers) =>
      json(status, { error: { code: status, message, status: 'UNAUTHENTICATED' } }, headers),
    usage: { input_tokens: 40, output_tokens: 12 },
    // Vertex lists Gemini 2.5 Flash at the Gemini API's price, which the table holds.
    costUsd: (40 * 0.3 + 12 * 2.5) / 1e6,
  },
  chatProtocol(
    'mistral',
    'MISTRAL_API_KEY',
    'mistral-small-latest',
    '/v1',
    (text) => chatCompletion('mistral-small-latest', text),
    (_status, message) => ({ object: 'error', message, type: 'invalid_request_error' }),
  ),
  chatProtocol(
    'groq',
    'GROQ_API_KEY',
    'llama-3.1-8b-instant',
    '/openai/v1',
    (text) =>
      chatCompletion(
        'llama-3.1-8b-instant',
        text,
        { queue_time: 0.01, prompt_time: 0.002, completion_time: 0.01, total_time: 0.012 },
        { x_groq: { id: 'req_e2e' } },
      ),
    openaiStyleError,
  ),
  chatProtocol(
    'xai',
    'XAI_API_KEY',
    'grok-3-mini',
    '/v1',
    (text) =>
      chatCompletion('grok-3-mini', text, {
        prompt_tokens_details: { text_tokens: 40, cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      }),
    (_status, message) => ({ code: 'Client specified an invalid argument', error: message }),
  ),
  chatProtocol(
    'deepseek',
    'DEEPSEEK_API_KEY',
    'deepseek-chat',
    '',
    (text) =>
      chatCompletion('deepseek-chat', text, {
        prompt_cache_hit_tokens: 0,
        prompt_cache_miss_tokens: 40,
      }),
    openaiStyleError,
  ),
  {
    ...chatProtocol(
      'openrouter',
      'OPENROUTER_API_KEY',
      'mistralai/mistral-small-3.2-24b-instruct',
      '/api/v1',
      (text) =>
        chatCompletion(
          'mistralai/mistral-small-3.2-24b-instruct',
          text,
          { cost: OPENROUTER_COST_USD, prompt_tokens_details: { cached_tokens: 0 } },
          { provider: 'Mistral' },
        ),
      (status, message) => ({ error: { message, code: status } }),
    ),
    // What OpenRouter charged, from its answer.
    costUsd: OPENROUTER_COST_USD,
  },
];
