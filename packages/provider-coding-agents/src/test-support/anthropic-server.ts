import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A tool call the scripted model makes: Claude Code's own tool name and its input. */
export interface ScriptedToolUse {
  tool: string;
  input: Record<string, unknown>;
}

/**
 * One answer of the scripted model, chosen by how many assistant turns the request already holds:
 * the first request gets turn 0, the request carrying the first `tool_result` gets turn 1, and so on.
 * - `text` and/or `tools`: a streamed message (`stop_reason` `tool_use` when it calls tools).
 * - `status` + `error`: an Anthropic error answer (401 `authentication_error`, 404 `not_found_error`…).
 * - `hang`: accept the request and never answer.
 */
export type ScriptedTurn =
  | { text?: string; tools?: ScriptedToolUse[]; usage?: { input: number; output: number } }
  | { status: number; error: { type: string; message: string } }
  | { hang: true };

/**
 * The script of a run: one list of turns for every conversation, or a function choosing the list
 * from the conversation's first user message (several cases share one server).
 */
export type Script = ScriptedTurn[] | ((prompt: string) => ScriptedTurn[]);

/** A request the server received. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  // biome-ignore lint/suspicious/noExplicitAny: tests read request bodies of a known protocol
  body: any;
}

export interface AnthropicServer {
  /** `http://127.0.0.1:<port>`: the agent's `ANTHROPIC_BASE_URL`. */
  origin: string;
  requests: RecordedRequest[];
  /** Requests of the conversation (those offering tools), in order. */
  conversation(): RecordedRequest[];
  close(): Promise<void>;
}

const DEFAULT_USAGE = { input: 120, output: 30 };

/**
 * Starts an Anthropic Messages server on 127.0.0.1 that plays `script`: `POST /v1/messages`
 * answered as the API streams (`message_start`, content blocks with `text_delta` /
 * `input_json_delta`, `message_delta` with `stop_reason` and usage, `message_stop`). A request
 * past the end of the script, and a side request that offers no tools (Claude Code asks for
 * titles and the like), gets a short text answer. Every request is recorded.
 */
export async function startAnthropicServer(script: Script): Promise<AnthropicServer> {
  const requests: RecordedRequest[] = [];
  let messageCount = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      raw += chunk;
    });
    req.on('end', () => {
      const request: RecordedRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body: parseBody(raw),
      };
      requests.push(request);
      const path = request.url.split('?')[0];
      if (request.method !== 'POST' || path !== '/v1/messages') {
        sendError(res, 404, { type: 'not_found_error', message: `no route ${request.url}` });
        return;
      }
      const body = request.body ?? {};
      const isConversation = Array.isArray(body.tools) && body.tools.length > 0;
      const turns = typeof script === 'function' ? script(firstUserText(body.messages)) : script;
      const turn: ScriptedTurn = isConversation
        ? (turns[assistantTurns(body.messages)] ?? { text: 'Done.' })
        : { text: 'Side answer.' };
      if ('hang' in turn) return;
      if ('status' in turn) {
        sendError(res, turn.status, turn.error);
        return;
      }
      messageCount += 1;
      streamMessage(res, turn, `msg_${String(messageCount).padStart(4, '0')}`, body.model);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    conversation: () => requests.filter((r) => Array.isArray(r.body?.tools) && r.body.tools.length),
    close: () =>
      new Promise((resolve) => {
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

function assistantTurns(messages: unknown): number {
  if (!Array.isArray(messages)) return 0;
  return messages.filter((m) => m && typeof m === 'object' && m.role === 'assistant').length;
}

function firstUserText(messages: unknown): string {
  const first = Array.isArray(messages) ? messages.find((m) => m?.role === 'user') : undefined;
  if (typeof first?.content === 'string') return first.content;
  if (!Array.isArray(first?.content)) return '';
  return first.content
    .filter((block: { type?: unknown; text?: unknown }) => block?.type === 'text')
    .map((block: { text?: unknown }) => String(block.text))
    .join('\n');
}

function sendError(res: ServerResponse, status: number, error: { type: string; message: string }) {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_scripted' });
  res.end(JSON.stringify({ type: 'error', error }));
}

function streamMessage(
  res: ServerResponse,
  turn: { text?: string; tools?: ScriptedToolUse[]; usage?: { input: number; output: number } },
  id: string,
  model: unknown,
): void {
  const usage = turn.usage ?? DEFAULT_USAGE;
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'request-id': `req_${id}`,
  });
  const send = (event: string, data: unknown) =>
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  send('message_start', {
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: typeof model === 'string' ? model : 'claude-sonnet-4-5',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 1,
      },
    },
  });
  send('ping', { type: 'ping' });
  let index = 0;
  if (turn.text !== undefined) {
    send('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'text', text: '' },
    });
    // Two deltas, so a reader that keeps only the last piece shows half an answer.
    const cut = Math.ceil(turn.text.length / 2);
    for (const piece of [turn.text.slice(0, cut), turn.text.slice(cut)]) {
      if (piece === '') continue;
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: piece },
      });
    }
    send('content_block_stop', { type: 'content_block_stop', index });
    index += 1;
  }
  for (const [n, call] of (turn.tools ?? []).entries()) {
    send('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: `toolu_${id}_${n}`, name: call.tool, input: {} },
    });
    const json = JSON.stringify(call.input);
    const cut = Math.ceil(json.length / 2);
    for (const piece of [json.slice(0, cut), json.slice(cut)]) {
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: piece },
      });
    }
    send('content_block_stop', { type: 'content_block_stop', index });
    index += 1;
  }
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: turn.tools?.length ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: usage.output },
  });
  send('message_stop', { type: 'message_stop' });
  res.end();
}
