import type { IncomingMessage } from 'node:http';
import { sendEvents, startScriptedServer } from './scripted-server.js';

/**
 * One model turn of a script: call the agent's shell tool with a command, apply a patch through
 * its shell (Codex turns `apply_patch <<'PATCH' … PATCH` into a `file_change`), answer with text
 * (which ends the agent's turn), fail with an HTTP status, or never answer.
 */
export type ScriptTurn =
  | { shell: string }
  | { patch: string }
  | { answer: string }
  /** A response that completes with no output at all: the agent's turn ends without an answer. */
  | { silent: true }
  | { status: number; error: string; code?: string }
  | { hang: true };

/** A request the server received. */
export interface ReceivedResponsesRequest {
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** The text of the user's messages in the request, joined. */
  prompt: string;
}

export interface ResponsesServer {
  /** `http://127.0.0.1:<port>/v1`: a `base_url` for Codex. */
  baseUrl: string;
  requests: ReceivedResponsesRequest[];
  /** Requests still waiting for an answer (`hang` turns). */
  readonly open: number;
  close(): Promise<void>;
}

/** Tokens every scripted response reports (the agent adds them up per turn). */
export const SCRIPTED_USAGE = { input_tokens: 120, output_tokens: 30 };

/**
 * A scripted model speaking the OpenAI Responses API (`POST /v1/responses`, streamed as
 * server-sent events, as Codex asks for them), on 127.0.0.1 only. `script(prompt)` gives the
 * turns of one conversation, chosen from the user's prompt; the turn answered is the number of
 * tool calls already in the request's input, so the server keeps no state between requests.
 */
export async function startResponsesServer(
  script: (prompt: string) => ScriptTurn[],
): Promise<ResponsesServer> {
  const requests: ReceivedResponsesRequest[] = [];
  let sequence = 0;
  const server = await startScriptedServer((request, res) => {
    const body: Record<string, unknown> = isObject(request.body) ? request.body : {};
    const input = Array.isArray(body.input) ? (body.input as Record<string, unknown>[]) : [];
    const prompt = userText(input);
    requests.push({ url: request.url, headers: request.headers, body, prompt });
    if (request.method !== 'POST' || !request.url.endsWith('/responses')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${request.method} ${request.url}` } }));
      return;
    }
    const turns = script(prompt);
    const done = input.filter((item) => item.type === 'function_call').length;
    const turn = turns[done] ?? { answer: 'I have nothing more to do.' };
    const id = `${++sequence}`;
    const model = typeof body.model === 'string' ? body.model : 'scripted';
    if ('hang' in turn) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': waiting\n\n');
      return 'hang';
    }
    if ('status' in turn) {
      res.writeHead(turn.status, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message: turn.error, type: 'invalid_request_error', code: turn.code ?? null },
        }),
      );
      return;
    }
    sendEvents(
      res,
      responseEvents(turn, id, model).map((event) => ({ event: String(event.type), data: event })),
    );
    return;
  });
  return {
    baseUrl: `${server.origin}/v1`,
    requests,
    get open() {
      return server.open;
    },
    close: () => server.close(),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

type Answerable = Extract<
  ScriptTurn,
  { shell: string } | { patch: string } | { answer: string } | { silent: true }
>;

/** The streamed events of one response: created, the output item added and done, completed. */
function responseEvents(turn: Answerable, id: string, model: string): Record<string, unknown>[] {
  const response = { id: `resp_${id}`, object: 'response', model, output: [] as unknown[] };
  const usage = {
    ...SCRIPTED_USAGE,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: SCRIPTED_USAGE.input_tokens + SCRIPTED_USAGE.output_tokens,
  };
  if ('silent' in turn) {
    return [
      { type: 'response.created', response: { ...response, status: 'in_progress' } },
      { type: 'response.completed', response: { ...response, status: 'completed', usage } },
    ];
  }
  const item =
    'answer' in turn
      ? {
          type: 'message',
          id: `msg_${id}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: turn.answer, annotations: [] }],
        }
      : {
          type: 'function_call',
          id: `fc_${id}`,
          call_id: `call_${id}`,
          name: 'exec_command',
          arguments: JSON.stringify({
            cmd: 'shell' in turn ? turn.shell : `apply_patch <<'PATCH'\n${turn.patch}\nPATCH`,
          }),
        };
  const events: Record<string, unknown>[] = [
    { type: 'response.created', response: { ...response, status: 'in_progress' } },
    {
      type: 'response.output_item.added',
      output_index: 0,
      item: 'answer' in turn ? { ...item, content: [] } : item,
    },
  ];
  if ('answer' in turn) {
    events.push({
      type: 'response.output_text.delta',
      output_index: 0,
      item_id: item.id,
      content_index: 0,
      delta: turn.answer,
    });
  }
  events.push(
    { type: 'response.output_item.done', output_index: 0, item },
    {
      type: 'response.completed',
      response: { ...response, status: 'completed', output: [item], usage },
    },
  );
  return events;
}

function userText(input: Record<string, unknown>[]): string {
  const texts: string[] = [];
  for (const item of input) {
    if (item.type !== 'message' || item.role !== 'user' || !Array.isArray(item.content)) continue;
    for (const part of item.content as Record<string, unknown>[]) {
      if (typeof part.text === 'string') texts.push(part.text);
    }
  }
  return texts.join('\n');
}
