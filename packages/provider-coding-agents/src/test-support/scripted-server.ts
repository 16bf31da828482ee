import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A tool call the scripted model makes: the agent's own tool name and its input. */
export interface ScriptedToolUse {
  tool: string;
  input: Record<string, unknown>;
}

/**
 * One answer of a scripted model, chosen by how many model turns the request already holds:
 * the first request gets turn 0, the request carrying the first tool result gets turn 1, and so on.
 * - `text` and/or `tools`: a streamed answer (a tool-calling one when it has tools).
 * - `status` + `error`: the API's error answer (401, 404…), `error.type` its kind of error.
 * - `hang`: accept the request and never answer.
 */
export type ScriptedTurn =
  | { text?: string; tools?: ScriptedToolUse[]; usage?: { input: number; output: number } }
  | { status: number; error: { type: string; message: string } }
  | { hang: true };

/** An answer that streams: the turns that are neither errors nor hangs. */
export type StreamedTurn = Extract<ScriptedTurn, { text?: string }>;

/**
 * The script of a run: one list of turns for every conversation, or a function choosing the list
 * from the conversation's first user message (several cases share one server).
 */
export type Script = ScriptedTurn[] | ((prompt: string) => ScriptedTurn[]);

/** Tokens a scripted answer reports when its turn names none. */
export const DEFAULT_USAGE = { input: 120, output: 30 };

/** A request the server received. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  // biome-ignore lint/suspicious/noExplicitAny: tests read request bodies of a known protocol
  body: any;
}

/** What a protocol does with one request: stream an answer, send an error, or keep it open. */
export type RequestHandler = (request: RecordedRequest, res: ServerResponse) => 'hang' | undefined;

export interface ScriptedServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  requests: RecordedRequest[];
  /** Requests still waiting for an answer (`hang` turns). */
  readonly open: number;
  close(): Promise<void>;
}

/** The turn of `script` for a conversation whose first user text is `prompt`, after `done` model turns. */
export function scriptedTurn(script: Script, prompt: string, done: number): ScriptedTurn {
  const turns = typeof script === 'function' ? script(prompt) : script;
  return turns[done] ?? { text: 'Done.' };
}

/**
 * An HTTP server on 127.0.0.1 (never another address) that records every request, its JSON body
 * parsed, and hands it to `handle`; requests the handler keeps open are ended by `close`.
 */
export async function startScriptedServer(handle: RequestHandler): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: RecordedRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body: parseBody(Buffer.concat(chunks).toString('utf8')),
      };
      requests.push(request);
      if (handle(request, res) === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    get open() {
      return hanging.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parseBody(raw: string): unknown {
  try {
    return raw === '' ? undefined : JSON.parse(raw);
  } catch {
    return { unparsed: raw };
  }
}

/** Sends server-sent events: one `data:` frame per payload (with `event:` when named). */
export function sendEvents(
  res: ServerResponse,
  frames: { event?: string; data: unknown }[],
  headers: Record<string, string> = {},
): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    ...headers,
  });
  for (const frame of frames) {
    res.write(
      `${frame.event ? `event: ${frame.event}\n` : ''}data: ${JSON.stringify(frame.data)}\n\n`,
    );
  }
  res.end();
}

/** Two halves of `text` (a stream that a reader keeping only the last piece shows half of). */
export function halves(text: string): string[] {
  const cut = Math.ceil(text.length / 2);
  return [text.slice(0, cut), text.slice(cut)].filter((piece) => piece !== '');
}
