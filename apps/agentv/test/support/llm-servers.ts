import type { IncomingMessage, ServerResponse } from 'node:http';
import { type LocalServer, startLocalServer } from './processes.js';

/** A request an LLM server received. */
export interface LlmRequest {
  url: string;
  headers: IncomingMessage['headers'];
  // biome-ignore lint/suspicious/noExplicitAny: request bodies of known protocols
  body: any;
}

/** One HTTP answer. */
export interface LlmReply {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
  /** Send the status, headers and half the body, then reset the connection. */
  cutMidBody?: boolean;
}

export interface LlmServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: LlmRequest[];
  /** Answers for the next requests, in order; when none is queued `fallback` answers. */
  queue(...replies: LlmReply[]): void;
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1 that records requests and answers with queued replies. */
export async function startLlmServer(
  fallback: (request: LlmRequest) => LlmReply,
): Promise<LlmServer> {
  const requests: LlmRequest[] = [];
  const queued: LlmReply[] = [];
  const server: LocalServer = await startLocalServer(
    (request: IncomingMessage, response: ServerResponse) => {
      let raw = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => {
        raw += chunk;
      });
      request.on('end', () => {
        const received: LlmRequest = {
          url: request.url ?? '/',
          headers: request.headers,
          body: raw === '' ? undefined : JSON.parse(raw),
        };
        requests.push(received);
        const reply = queued.shift() ?? fallback(received);
        const body = JSON.stringify(reply.body);
        response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        if (reply.cutMidBody) {
          response.write(body.slice(0, body.length / 2));
          setTimeout(() => response.socket?.destroy(), 20);
          return;
        }
        response.end(body);
      });
    },
  );
  return {
    url: server.url,
    requests,
    queue: (...replies) => queued.push(...replies),
    close: () => server.close(),
  };
}

/** An OpenAI chat completions answer (what OpenAI-compatible servers send). */
export function chatReply(text: string, usage = { prompt: 50, completion: 10 }): LlmReply {
  return {
    status: 200,
    body: {
      id: 'chatcmpl-e2e',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: usage.prompt,
        completion_tokens: usage.completion,
        total_tokens: usage.prompt + usage.completion,
      },
    },
  };
}

/** An OpenAI error answer. */
export function chatError(
  status: number,
  message: string,
  headers?: Record<string, string>,
): LlmReply {
  return {
    status,
    ...(headers ? { headers } : {}),
    body: { error: { message, type: 'invalid_request_error', code: null } },
  };
}

/** An Anthropic messages answer. */
export function anthropicReply(text: string): LlmReply {
  return {
    status: 200,
    body: {
      id: 'msg_e2e',
      type: 'message',
      role: 'assistant',
      model: 'claude-3-5-haiku-20241022',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 40, output_tokens: 12 },
    },
  };
}

/** A Gemini generateContent answer. */
export function geminiReply(text: string): LlmReply {
  return {
    status: 200,
    body: {
      candidates: [
        { content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 },
      ],
      usageMetadata: { promptTokenCount: 40, candidatesTokenCount: 12, totalTokenCount: 52 },
      modelVersion: 'gemini-2.5-flash',
    },
  };
}

/** Text of the last user message of an OpenAI chat completions request. */
export function lastUserText(request: LlmRequest): string {
  const messages: { role: string; content: unknown }[] = request.body?.messages ?? [];
  const user = messages.filter((message) => message.role === 'user').at(-1);
  if (!user) return '';
  if (typeof user.content === 'string') return user.content;
  return (user.content as { text?: string }[]).map((part) => part.text ?? '').join('');
}
