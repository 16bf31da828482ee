import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the server received, with the time it arrived. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  /** The raw body text, as sent. */
  text: string;
  receivedAt: number;
}

/** One answer: status, headers, and a body (objects are sent as JSON, strings as they are). */
export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Wait this long before answering. */
  delayMs?: number;
}

export interface AgentServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  requests: ReceivedRequest[];
  /** Answers for the next requests, in order; when none is queued `fallback` answers. */
  queue(...replies: Reply[]): void;
  close(): Promise<void>;
}

/** Starts an HTTP server on 127.0.0.1 that records requests and answers with queued replies. */
export async function startAgentServer(
  fallback: (request: ReceivedRequest) => Reply = () => ({ body: { data: { answer: 'ok' } } }),
): Promise<AgentServer> {
  const requests: ReceivedRequest[] = [];
  const queued: Reply[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const receivedAt = Date.now();
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
    });
    req.on('end', () => {
      const request: ReceivedRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        text,
        receivedAt,
      };
      requests.push(request);
      const reply = queued.shift() ?? fallback(request);
      const send = () => {
        const json = typeof reply.body !== 'string';
        res.writeHead(reply.status ?? 200, {
          'content-type': json ? 'application/json' : 'text/html',
          ...reply.headers,
        });
        res.end(json ? JSON.stringify(reply.body ?? {}) : reply.body);
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
