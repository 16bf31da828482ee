import type { IncomingMessage, ServerResponse } from 'node:http';
import { halves, startScriptedServer } from './scripted-server.js';

/**
 * One model turn of a script: call the agent's shell tool with a command, call one of its
 * tools by the agent's own name (opencode's `read`, `edit`, `write`…) with an input, answer with
 * text (which ends the agent's turn), fail with an HTTP status, or never answer.
 */
export type ChatScriptTurn =
  | { shell: string }
  | { tool: string; input: Record<string, unknown> }
  | { answer: string }
  /** A response that finishes with no content and no tool call: the turn ends without an answer. */
  | { silent: true }
  | { status: number; error: string; code?: string }
  | { hang: true };

/** A request the server received. */
export interface ReceivedChatRequest {
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** The text of the user's messages in the request, joined. */
  prompt: string;
}

export interface ChatCompletionsServer {
  /** `http://127.0.0.1:<port>/v1`: a `base_url` for an OpenAI-compatible client. */
  baseUrl: string;
  requests: ReceivedChatRequest[];
  /** Requests of the agent's conversation (those offering tools), in order. */
  conversation(): ReceivedChatRequest[];
  /** Requests still waiting for an answer (`hang` turns). */
  readonly open: number;
  close(): Promise<void>;
}

/** Tokens every scripted response reports, in the last chunk of its stream. */
export const SCRIPTED_CHAT_USAGE = { prompt_tokens: 120, completion_tokens: 30 };

/**
 * A scripted model speaking OpenAI chat completions (`POST /v1/chat/completions`, streamed as
 * server-sent `chat.completion.chunk`s: text in `content` deltas, a tool call as a `tool_calls`
 * delta whose arguments arrive in two pieces, `finish_reason`, then `usage` in a last chunk with
 * no choices, then `[DONE]`), on 127.0.0.1 only. `script(prompt)` gives the turns of one
 * conversation, chosen from the user's prompt; the turn answered is the number of assistant
 * messages already in the request, so the server keeps no state between requests. A request that
 * offers no tools (an agent's side request, such as a session title) gets a short text answer.
 */
export async function startChatCompletionsServer(
  script: (prompt: string) => ChatScriptTurn[],
): Promise<ChatCompletionsServer> {
  const requests: ReceivedChatRequest[] = [];
  let sequence = 0;
  const server = await startScriptedServer((request, res) => {
    const body: Record<string, unknown> =
      typeof request.body === 'object' && request.body !== null ? request.body : {};
    const messages = Array.isArray(body.messages)
      ? (body.messages as Record<string, unknown>[])
      : [];
    const prompt = userText(messages);
    requests.push({ url: request.url, headers: request.headers, body, prompt });
    if (request.method !== 'POST' || !request.url.endsWith('/chat/completions')) {
      sendJson(res, 404, { error: { message: `no route ${request.method} ${request.url}` } });
      return;
    }
    const offersTools = Array.isArray(body.tools) && body.tools.length > 0;
    const turn: ChatScriptTurn = offersTools
      ? (script(prompt)[assistantTurns(messages)] ?? { answer: 'I have nothing more to do.' })
      : { answer: 'Scripted title' };
    if ('hang' in turn) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': waiting\n\n');
      return 'hang';
    }
    if ('status' in turn) {
      sendJson(res, turn.status, {
        error: { message: turn.error, type: 'invalid_request_error', code: turn.code ?? null },
      });
      return;
    }
    const model = typeof body.model === 'string' ? body.model : 'scripted';
    sendChunks(res, completionChunks(turn, `chatcmpl-${++sequence}`, model));
    return;
  });
  return {
    baseUrl: `${server.origin}/v1`,
    requests,
    conversation: () =>
      requests.filter((request) => Array.isArray(request.body.tools) && request.body.tools.length),
    get open() {
      return server.open;
    },
    close: () => server.close(),
  };
}

type Answerable = Exclude<ChatScriptTurn, { status: number } | { hang: true }>;

/** The chunks of one streamed completion. */
function completionChunks(turn: Answerable, id: string, model: string): Record<string, unknown>[] {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  const chunks: Record<string, unknown>[] = [chunk({ role: 'assistant', content: '' })];
  let finish = 'stop';
  if ('answer' in turn) {
    // Two pieces, so a reader that keeps only the last delta shows half an answer.
    for (const piece of halves(turn.answer)) chunks.push(chunk({ content: piece }));
  } else if (!('silent' in turn)) {
    const [name, input] =
      'shell' in turn
        ? ['bash', { command: turn.shell, description: 'Runs a scripted command' }]
        : [turn.tool, turn.input];
    const [first = '', second = ''] = halves(JSON.stringify(input));
    chunks.push(
      chunk({
        tool_calls: [
          { index: 0, id: `call_${id}`, type: 'function', function: { name, arguments: first } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: second } }] }),
    );
    finish = 'tool_calls';
  }
  chunks.push(chunk({}, finish), {
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [],
    usage: {
      ...SCRIPTED_CHAT_USAGE,
      total_tokens: SCRIPTED_CHAT_USAGE.prompt_tokens + SCRIPTED_CHAT_USAGE.completion_tokens,
    },
  });
  return chunks;
}

/** The chunks as server-sent events, ending with `[DONE]` as OpenAI's API does. */
function sendChunks(res: ServerResponse, chunks: Record<string, unknown>[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  res.end('data: [DONE]\n\n');
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function assistantTurns(messages: Record<string, unknown>[]): number {
  return messages.filter((message) => message.role === 'assistant').length;
}

function userText(messages: Record<string, unknown>[]): string {
  const texts: string[] = [];
  for (const message of messages) {
    if (message.role !== 'user') continue;
    if (typeof message.content === 'string') texts.push(message.content);
    else if (Array.isArray(message.content)) {
      for (const part of message.content as Record<string, unknown>[]) {
        if (typeof part.text === 'string') texts.push(part.text);
      }
    }
  }
  return texts.join('\n');
}
