import type { ServerResponse } from 'node:http';
import {
  DEFAULT_USAGE,
  halves,
  type RecordedRequest,
  type Script,
  type ScriptedServer,
  type StreamedTurn,
  scriptedTurn,
  sendEvents,
  startScriptedServer,
} from './scripted-server.js';

export type {
  RecordedRequest,
  Script,
  ScriptedToolUse,
  ScriptedTurn,
} from './scripted-server.js';

export interface AnthropicServer extends ScriptedServer {
  /** Requests of the conversation (those offering tools), in order. */
  conversation(): RecordedRequest[];
}

const offersTools = (request: RecordedRequest) =>
  Array.isArray(request.body?.tools) && request.body.tools.length > 0;

/**
 * Starts an Anthropic Messages server on 127.0.0.1 that plays `script`: `POST /v1/messages`
 * answered as the API streams (`message_start`, content blocks with `text_delta` /
 * `input_json_delta`, `message_delta` with `stop_reason` and usage, `message_stop`). A request
 * past the end of the script, and a side request that offers no tools (Claude Code asks for
 * titles and the like), gets a short text answer. Every request is recorded.
 */
export async function startAnthropicServer(script: Script): Promise<AnthropicServer> {
  let messageCount = 0;
  const server = await startScriptedServer((request, res) => {
    const path = request.url.split('?')[0];
    if (request.method !== 'POST' || path !== '/v1/messages') {
      sendError(res, 404, { type: 'not_found_error', message: `no route ${request.url}` });
      return;
    }
    const body = request.body ?? {};
    const turn = offersTools(request)
      ? scriptedTurn(script, firstUserText(body.messages), assistantTurns(body.messages))
      : { text: 'Side answer.' };
    if ('hang' in turn) return 'hang';
    if ('status' in turn) {
      sendError(res, turn.status, turn.error);
      return;
    }
    messageCount += 1;
    streamMessage(res, turn, `msg_${String(messageCount).padStart(4, '0')}`, body.model);
    return;
  });
  return Object.assign(server, {
    conversation: () => server.requests.filter(offersTools),
  });
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

function streamMessage(res: ServerResponse, turn: StreamedTurn, id: string, model: unknown): void {
  const usage = turn.usage ?? DEFAULT_USAGE;
  const frames: { event: string; data: unknown }[] = [];
  const send = (event: string, data: Record<string, unknown>) =>
    frames.push({ event, data: { type: event, ...data } });
  send('message_start', {
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
  send('ping', {});
  let index = 0;
  if (turn.text !== undefined) {
    send('content_block_start', { index, content_block: { type: 'text', text: '' } });
    // Two deltas, so a reader that keeps only the last piece shows half an answer.
    for (const piece of halves(turn.text)) {
      send('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
    }
    send('content_block_stop', { index });
    index += 1;
  }
  for (const [n, call] of (turn.tools ?? []).entries()) {
    send('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: `toolu_${id}_${n}`, name: call.tool, input: {} },
    });
    for (const piece of halves(JSON.stringify(call.input))) {
      send('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: piece },
      });
    }
    send('content_block_stop', { index });
    index += 1;
  }
  send('message_delta', {
    delta: { stop_reason: turn.tools?.length ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: usage.output },
  });
  send('message_stop', {});
  sendEvents(res, frames, { 'request-id': `req_${id}` });
}
