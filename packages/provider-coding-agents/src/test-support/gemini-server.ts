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

export type { RecordedRequest, Script, ScriptedTurn } from './scripted-server.js';

export interface GeminiServer extends ScriptedServer {
  /** Requests of the conversation (those offering tools), in order. */
  conversation(): RecordedRequest[];
}

// biome-ignore lint/suspicious/noExplicitAny: request bodies of a known protocol
type Content = { role?: string; parts?: any[] };

const ROUTE = /^\/v1beta\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/;

const offersTools = (request: RecordedRequest) =>
  Array.isArray(request.body?.tools) && request.body.tools.length > 0;

/**
 * Starts a Gemini API server on 127.0.0.1 that plays `script`:
 * `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` answered as the API streams
 * (`data:` frames of `GenerateContentResponse`: text in two pieces, `functionCall` parts for
 * tool calls, `finishReason` and `usageMetadata` on the last frame); `:generateContent` answered
 * in one piece and `:countTokens` with a count. A request that offers no tools (a side request
 * of the CLI) and one past the end of the script get a short text answer. Errors are the API's
 * `{ error: { code, message, status } }`, `error.type` the status (`UNAUTHENTICATED`, `NOT_FOUND`).
 */
export async function startGeminiServer(script: Script): Promise<GeminiServer> {
  const server = await startScriptedServer((request, res) => {
    const route = ROUTE.exec(request.url.split('?')[0] ?? '');
    if (request.method !== 'POST' || route === null) {
      sendError(res, 404, 'NOT_FOUND', `no route ${request.method} ${request.url}`);
      return;
    }
    const [, model, method] = route;
    if (method === 'countTokens') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ totalTokens: DEFAULT_USAGE.input }));
      return;
    }
    const contents: Content[] = Array.isArray(request.body?.contents) ? request.body.contents : [];
    const turn = offersTools(request)
      ? scriptedTurn(script, userText(contents), toolTurns(contents))
      : { text: 'Side answer.' };
    if ('hang' in turn) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return 'hang';
    }
    if ('status' in turn) {
      sendError(res, turn.status, turn.error.type, turn.error.message);
      return;
    }
    const chunks = answerChunks(turn, model ?? 'gemini');
    if (method === 'generateContent') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(merged(chunks)));
    } else {
      sendEvents(
        res,
        chunks.map((data) => ({ data })),
      );
    }
    return;
  });
  return Object.assign(server, {
    conversation: () => server.requests.filter(offersTools),
  });
}

/** The frames of one streamed answer: the text in two pieces, then the calls, then the end. */
function answerChunks(turn: StreamedTurn, model: string): Record<string, unknown>[] {
  const usage = turn.usage ?? DEFAULT_USAGE;
  // biome-ignore lint/suspicious/noExplicitAny: Gemini's Part union
  const frame = (parts: any[], last = false) => ({
    candidates: [
      {
        content: { role: 'model', parts },
        index: 0,
        ...(last ? { finishReason: 'STOP' } : {}),
      },
    ],
    ...(last
      ? {
          usageMetadata: {
            promptTokenCount: usage.input,
            candidatesTokenCount: usage.output,
            totalTokenCount: usage.input + usage.output,
          },
        }
      : {}),
    modelVersion: model,
    responseId: 'scripted',
  });
  const frames = halves(turn.text ?? '').map((text) => frame([{ text }]));
  const calls = (turn.tools ?? []).map((call) => ({
    functionCall: { name: call.tool, args: call.input },
  }));
  frames.push(frame(calls, true));
  return frames;
}

/** One `GenerateContentResponse` holding every part of the frames, the text in one piece. */
function merged(chunks: Record<string, unknown>[]): Record<string, unknown> {
  // biome-ignore lint/suspicious/noExplicitAny: the frames built above
  const parts = chunks.flatMap((chunk: any) => chunk.candidates[0].content.parts);
  const text = parts.filter((part) => typeof part.text === 'string').map((part) => part.text);
  const whole = [
    ...(text.length > 0 ? [{ text: text.join('') }] : []),
    ...parts.filter((part) => typeof part.text !== 'string'),
  ];
  const last = chunks.at(-1) as Record<string, unknown> & { candidates: object[] };
  return {
    ...last,
    candidates: [{ ...last.candidates[0], content: { role: 'model', parts: whole } }],
  };
}

/** How many model turns called tools: the turn the script answers next. */
function toolTurns(contents: Content[]): number {
  return contents.filter(
    (content) =>
      content.role === 'model' && (content.parts ?? []).some((part) => part?.functionCall),
  ).length;
}

/**
 * The text of the user's messages without the `<session_context>` Gemini CLI sends first (it
 * lists the workspace's files, whose names would choose the wrong script).
 */
function userText(contents: Content[]): string {
  return contents
    .filter((content) => content.role === 'user')
    .flatMap((content) => content.parts ?? [])
    .filter((part) => typeof part?.text === 'string' && !part.text.startsWith('<session_context>'))
    .map((part) => part.text as string)
    .join('\n');
}

function sendError(res: ServerResponse, code: number, status: string, message: string): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { code, message, status } }));
}
