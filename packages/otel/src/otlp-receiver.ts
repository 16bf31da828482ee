import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGunzip, createInflate } from 'node:zlib';
import { AgentvError } from '@agentv/core';
import { decodeOtlpJson, decodeOtlpProtobuf, MalformedOtlpError } from './decode-otlp.js';
import { traceMessages } from './otlp-proto.js';
import type { OtlpSpan } from './otlp-span.js';

/** Default most bytes of one request body, after decompression. */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

/** What the receiver does with the spans of one request: how many it refused, and why. */
export type SpanSink = (spans: OtlpSpan[]) => { rejected: number; reason?: string };

export interface OtlpReceiverOptions {
  onSpans: SpanSink;
  /** Most bytes of one body, compressed or not (default 16 MiB): past it the answer is 413. */
  maxBodyBytes?: number;
  /** The port on 127.0.0.1 (default: a free one). */
  port?: number;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`; traces go to `<endpoint>/v1/traces`. */
  readonly endpoint: string;
  /** Resolves once every request that had arrived when it was called is answered. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

type Encoding = 'json' | 'protobuf';

/**
 * An OTLP/HTTP trace receiver on 127.0.0.1 (a free port): `POST /v1/traces` with
 * `application/json` or `application/x-protobuf`, gzip/deflate or not. Answers as
 * the OTLP specification says: 200 with a partial success naming the spans
 * refused (unknown trace ids), 400 for a malformed payload, 413 for a body past
 * the limit, 415 for another content type or encoding, 404 / 405 elsewhere.
 * A request never throws out of the server.
 */
export async function startOtlpReceiver(options: OtlpReceiverOptions): Promise<OtlpReceiver> {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // Requests being read or answered: `settled` waits for those that started before it.
  const active = new Set<Promise<void>>();
  const server = createServer((request, response) => {
    const done = new Promise<void>((resolve) => response.on('close', resolve));
    active.add(done);
    done.then(() => active.delete(done));
    handle(request, response, options.onSpans, maxBodyBytes).catch(() => {
      // Answered already, or the client went away: nothing left to tell it.
      if (!response.headersSent) status(response, 'json', 500, 'internal error');
    });
  });
  server.keepAliveTimeout = 5_000;
  const port = options.port ?? 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, port)));
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    settled: () => Promise.all([...active]).then(() => undefined),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  onSpans: SpanSink,
  maxBodyBytes: number,
): Promise<void> {
  const path = (request.url ?? '/').split('?')[0];
  const encoding = encodingOf(request.headers['content-type']);
  if (path !== '/v1/traces') {
    request.resume();
    return status(
      response,
      encoding ?? 'json',
      404,
      `no OTLP endpoint at ${path}; traces go to /v1/traces`,
    );
  }
  if (request.method !== 'POST') {
    request.resume();
    response.setHeader('allow', 'POST');
    return status(response, encoding ?? 'json', 405, 'send traces with POST');
  }
  if (encoding === undefined) {
    request.resume();
    return status(
      response,
      'json',
      415,
      'content-type must be application/json or application/x-protobuf',
    );
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBodyBytes) {
    return tooLarge(request, response, encoding, maxBodyBytes);
  }
  const compression = (request.headers['content-encoding'] ?? 'identity').toLowerCase();
  let source: NodeJS.ReadableStream = request;
  if (compression === 'gzip') source = request.pipe(createGunzip());
  else if (compression === 'deflate') source = request.pipe(createInflate());
  else if (compression !== 'identity') {
    request.resume();
    return status(
      response,
      encoding,
      415,
      `content-encoding ${compression} is not supported (gzip, deflate or none)`,
    );
  }
  const body = await readBody(source, maxBodyBytes);
  if (body === 'too large') return tooLarge(request, response, encoding, maxBodyBytes);
  if (body === 'corrupt')
    return status(response, encoding, 400, `the ${compression} body could not be decompressed`);
  let spans: OtlpSpan[];
  try {
    spans = encoding === 'json' ? decodeOtlpJson(body.toString('utf8')) : decodeOtlpProtobuf(body);
  } catch (error) {
    if (!(error instanceof MalformedOtlpError)) throw error;
    return status(response, encoding, 400, `malformed OTLP ${encoding}: ${error.message}`);
  }
  const { rejected, reason } =
    spans.length === 0 ? { rejected: 0, reason: undefined } : onSpans(spans);
  const partial =
    rejected > 0 ? { rejectedSpans: rejected, errorMessage: reason ?? 'spans refused' } : undefined;
  if (encoding === 'json') {
    send(
      response,
      200,
      'application/json',
      JSON.stringify(partial === undefined ? {} : { partialSuccess: partial }),
    );
  } else {
    send(response, 200, 'application/x-protobuf', protobufSuccess(partial));
  }
}

/** Why the receiver could not listen, in the user's terms. */
function listenError(error: NodeJS.ErrnoException, port: number): AgentvError {
  if (error.code === 'EADDRINUSE') {
    return new AgentvError(
      `the OTLP receiver cannot listen on 127.0.0.1:${port}: another program uses that port`,
      {
        hint: 'stop the program on that port (e.g. a collector), choose another trace.port in the target, or leave port out for a free one',
      },
    );
  }
  if (error.code === 'EACCES') {
    return new AgentvError(
      `the OTLP receiver may not listen on 127.0.0.1:${port} (ports below 1024 need privileges)`,
      { hint: 'choose a trace.port of 1024 or more, or leave it out for a free one' },
    );
  }
  return new AgentvError(`the OTLP receiver cannot listen on 127.0.0.1:${port}: ${error.message}`, {
    hint: 'leave trace.port out for a free port',
  });
}

// The answer to almost every request: a full success, encoded once.
let fullSuccess: Uint8Array | undefined;

/** An `ExportTraceServiceResponse`, with the partial success when spans were refused. */
function protobufSuccess(
  partial: { rejectedSpans: number; errorMessage: string } | undefined,
): Uint8Array {
  const messages = traceMessages();
  if (partial === undefined) {
    fullSuccess ??= messages.ExportTraceServiceResponse.encode(
      messages.ExportTraceServiceResponse.fromObject({}),
    ).finish();
    return fullSuccess;
  }
  return messages.ExportTraceServiceResponse.encode(
    messages.ExportTraceServiceResponse.fromObject({ partialSuccess: partial }),
  ).finish();
}

function encodingOf(contentType: string | undefined): Encoding | undefined {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (type === 'application/json') return 'json';
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  return undefined;
}

async function readBody(
  source: NodeJS.ReadableStream,
  maxBytes: number,
): Promise<Buffer | 'too large' | 'corrupt'> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of source) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) return 'too large';
      chunks.push(chunk as Buffer);
    }
  } catch {
    return 'corrupt';
  }
  return Buffer.concat(chunks, size);
}

function tooLarge(
  request: IncomingMessage,
  response: ServerResponse,
  encoding: Encoding,
  maxBytes: number,
): void {
  // The rest is not read: the connection closes after the answer.
  response.setHeader('connection', 'close');
  status(
    response,
    encoding,
    413,
    `the body is larger than ${maxBytes} bytes; export smaller batches`,
  );
  request.on('error', () => {});
  response.on('finish', () => request.destroy());
}

/** An error answer: a `google.rpc.Status` in the request's encoding. */
function status(response: ServerResponse, encoding: Encoding, code: number, message: string): void {
  // gRPC codes: INVALID_ARGUMENT 3, NOT_FOUND 5, UNIMPLEMENTED 12, RESOURCE_EXHAUSTED 8, INTERNAL 13.
  const grpc =
    code === 400 || code === 415 ? 3 : code === 404 ? 5 : code === 413 ? 8 : code === 405 ? 12 : 13;
  if (encoding === 'json') {
    send(response, code, 'application/json', JSON.stringify({ code: grpc, message }));
    return;
  }
  send(response, code, 'application/x-protobuf', encodeStatus(grpc, message));
}

/** `google.rpc.Status { int32 code = 1; string message = 2; }`, encoded by hand (two fields). */
function encodeStatus(code: number, message: string): Buffer {
  const text = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from([0x08, code, 0x12]), varint(text.length), text]);
}

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest > 0x7f) {
    bytes.push((rest & 0x7f) | 0x80);
    rest >>>= 7;
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

function send(
  response: ServerResponse,
  code: number,
  type: string,
  body: string | Uint8Array,
): void {
  response.writeHead(code, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}
