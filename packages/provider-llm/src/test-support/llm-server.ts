import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the server received. */
export interface ReceivedRequest {
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  url: string;
  headers: IncomingMessage['headers'];
  // biome-ignore lint/suspicious/noExplicitAny: tests read request bodies of known protocols
  body: any;
}

/** One HTTP answer: status, headers and a JSON body. */
export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Send the status, headers and the first half of the body, then close the connection. */
  cutMidBody?: boolean;
}

export interface LlmServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  requests: ReceivedRequest[];
  /** Queue answers for the next requests; when the queue is empty `fallback` answers. */
  queue(...replies: Reply[]): void;
  close(): Promise<void>;
}

/** Starts an HTTP server on 127.0.0.1 that records requests and answers with queued replies. */
export async function startLlmServer(
  fallback: (request: ReceivedRequest) => Reply,
): Promise<LlmServer> {
  const requests: ReceivedRequest[] = [];
  const queued: Reply[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      raw += chunk;
    });
    req.on('end', () => {
      const request: ReceivedRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body: raw === '' ? undefined : JSON.parse(raw),
      };
      requests.push(request);
      const reply = queued.shift() ?? fallback(request);
      const send = () => {
        const body = JSON.stringify(reply.body);
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        if (reply.cutMidBody) {
          // Announce the whole body, send half of it, and reset the connection.
          res.write(body.slice(0, body.length / 2));
          setTimeout(() => res.socket?.destroy(), 20);
          return;
        }
        res.end(body);
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    queue: (...replies) => queued.push(...replies),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A chat completions answer, as OpenAI, Azure OpenAI and compatible servers send it. */
export function openaiChatReply(
  text: string,
  usage = { prompt: 12, completion: 5, cached: 4 },
): Reply {
  return {
    status: 200,
    body: {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'gpt-4o-mini-2024-07-18',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: text, refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: usage.prompt,
        completion_tokens: usage.completion,
        total_tokens: usage.prompt + usage.completion,
        prompt_tokens_details: { cached_tokens: usage.cached, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
      },
    },
  };
}

/** An Anthropic messages answer. */
export function anthropicReply(text: string): Reply {
  return {
    status: 200,
    body: {
      id: 'msg_01',
      type: 'message',
      role: 'assistant',
      model: 'claude-3-5-haiku-20241022',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: 8,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 4,
        output_tokens: 5,
      },
    },
  };
}

/** A Gemini generateContent answer. */
export function geminiReply(text: string): Reply {
  return {
    status: 200,
    body: {
      candidates: [
        {
          content: { role: 'model', parts: [{ text }] },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: {
        promptTokenCount: 12,
        candidatesTokenCount: 5,
        totalTokenCount: 17,
        cachedContentTokenCount: 4,
      },
      modelVersion: 'gemini-2.5-flash',
    },
  };
}
