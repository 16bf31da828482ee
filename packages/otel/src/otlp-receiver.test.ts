import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { traceMessages } from './otlp-proto.js';
import { type OtlpReceiver, startOtlpReceiver } from './otlp-receiver.js';
import type { OtlpSpan } from './otlp-span.js';

// The receiver over real HTTP on 127.0.0.1: what an OTLP exporter is answered, in both encodings.

const TRACE = '5b8efff798038103d269b633813fc60c';
const UNKNOWN = '0af7651916cd43dd8448eb211c80319c';

let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function start(maxBodyBytes?: number) {
  const received: OtlpSpan[] = [];
  receiver = await startOtlpReceiver({
    onSpans: (spans) => {
      const known = spans.filter((span) => span.traceId === TRACE);
      received.push(...known);
      return { rejected: spans.length - known.length, reason: 'unknown trace id' };
    },
    ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
  });
  return { received, url: `${receiver.endpoint}/v1/traces` };
}

function jsonRequest(traceIds: string[]) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'agent' } }] },
        scopeSpans: [
          {
            spans: traceIds.map((traceId, index) => ({
              traceId,
              spanId: `eee19b7ec3c1b17${index}`,
              name: 'ai.toolCall',
              startTimeUnixNano: '1700000000000000000',
              endTimeUnixNano: '1700000000250000000',
              attributes: [
                { key: 'ai.toolCall.name', value: { stringValue: 'search' } },
                { key: 'ai.toolCall.args', value: { stringValue: '{"q":"otel"}' } },
                { key: 'attempt', value: { intValue: '2' } },
              ],
              status: { code: 2, message: 'boom' },
            })),
          },
        ],
      },
    ],
  };
}

function protobufRequest(traceIds: string[]): Uint8Array {
  const { ExportTraceServiceRequest } = traceMessages();
  const request = jsonRequest(traceIds);
  for (const span of request.resourceSpans[0]!.scopeSpans[0]!.spans) {
    Object.assign(span, {
      traceId: Buffer.from(span.traceId, 'hex'),
      spanId: Buffer.from(span.spanId, 'hex'),
    });
  }
  return ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(request)).finish();
}

describe('startOtlpReceiver', () => {
  it('takes OTLP/JSON and answers a partial success naming the spans of unknown traces', async () => {
    const { received, url } = await start();
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(jsonRequest([TRACE, UNKNOWN])),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      partialSuccess: { rejectedSpans: 1, errorMessage: 'unknown trace id' },
    });
    expect(received).toEqual([
      expect.objectContaining({
        traceId: TRACE,
        name: 'ai.toolCall',
        startMs: 1_700_000_000_000,
        endMs: 1_700_000_000_250,
        attributes: {
          'ai.toolCall.name': 'search',
          'ai.toolCall.args': '{"q":"otel"}',
          attempt: 2,
        },
        resource: { 'service.name': 'agent' },
        statusCode: 2,
        statusMessage: 'boom',
      }),
    ]);
  });

  it('takes gzipped OTLP/protobuf and answers in protobuf', async () => {
    const { received, url } = await start();
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' },
      body: gzipSync(protobufRequest([TRACE, UNKNOWN, UNKNOWN])),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-protobuf');
    const answer = traceMessages().ExportTraceServiceResponse.decode(
      new Uint8Array(await response.arrayBuffer()),
    );
    expect(Number(answer.partialSuccess.rejectedSpans)).toBe(2);
    expect(received.map((span) => [span.traceId, span.startMs, span.attributes.attempt])).toEqual([
      [TRACE, 1_700_000_000_000, 2],
    ]);
  });

  it('answers 400 to malformed payloads in either encoding, and keeps serving', async () => {
    const { url } = await start();
    const bad = [
      { type: 'application/json', body: '{"resourceSpans": [' },
      { type: 'application/json', body: '[1, 2]' },
      {
        type: 'application/json',
        body: JSON.stringify({
          resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'xyz' }] }] }],
        }),
      },
      { type: 'application/x-protobuf', body: Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 1]) },
    ];
    for (const { type, body } of bad) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': type },
        body,
      });
      expect(response.status).toBe(400);
      await response.arrayBuffer();
    }
    const json = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'nope',
    });
    expect(await json.json()).toEqual({ code: 3, message: expect.stringContaining('not JSON') });
    const corrupt = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: 'not gzip at all',
    });
    expect(corrupt.status).toBe(400);
    const ok = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(jsonRequest([TRACE])),
    });
    expect(ok.status).toBe(200);
  });

  it('answers 413 to a body past the limit, declared or streamed, and to a gzip bomb', async () => {
    const { received, url } = await start(64 * 1024);
    const large = JSON.stringify({ resourceSpans: [], padding: 'x'.repeat(200 * 1024) });
    const declared = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: large,
    });
    expect(declared.status).toBe(413);
    const bomb = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(large),
    });
    expect(bomb.status).toBe(413);
    expect(received).toEqual([]);
  });

  it('answers 404, 405 and 415 where OTLP says so', async () => {
    const { url } = await start();
    const base = url.replace('/v1/traces', '');
    const post = (target: string, type: string, extra: Record<string, string> = {}) =>
      fetch(target, { method: 'POST', headers: { 'content-type': type, ...extra }, body: '{}' });
    expect((await post(`${base}/v1/metrics`, 'application/json')).status).toBe(404);
    expect((await fetch(url)).status).toBe(405);
    expect((await post(url, 'text/plain')).status).toBe(415);
    expect((await post(url, 'application/json', { 'content-encoding': 'br' })).status).toBe(415);
    expect((await post(url, 'application/json')).status).toBe(200);
  });
});

describe('the receiver port', () => {
  it('listens on the port asked for, and says so clearly when it is taken', async () => {
    // A free port, found by listening on 0 and letting it go.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));

    receiver = await startOtlpReceiver({ onSpans: () => ({ rejected: 0 }), port });
    expect(receiver.endpoint).toBe(`http://127.0.0.1:${port}`);
    const answer = await fetch(`${receiver.endpoint}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(answer.status).toBe(200);

    const taken = startOtlpReceiver({ onSpans: () => ({ rejected: 0 }), port });
    await expect(taken).rejects.toThrow(
      `the OTLP receiver cannot listen on 127.0.0.1:${port}: another program uses that port`,
    );
    await expect(taken).rejects.toMatchObject({ hint: expect.stringContaining('trace.port') });
  });
});
