import { describe, expect, it } from 'vitest';
import type { OtlpJsonSpan } from './case-spans.js';
import { encodeProtobuf, type OtlpJsonRequest, traceRequest } from './otlp-encode.js';
import { traceMessages } from './otlp-proto.js';

// The export's own OTLP/protobuf encoding against the official messages: what it writes must
// decode to exactly what protobufjs' generated encoder makes of the same request.

function span(index: number, extra: Partial<OtlpJsonSpan> = {}): OtlpJsonSpan {
  return {
    traceId: index.toString(16).padStart(32, '0'),
    spanId: (index + 1).toString(16).padStart(16, '0'),
    name: `span ${index}`,
    kind: index % 2 === 0 ? 1 : 3,
    startTimeUnixNano: String(1_767_225_600_000_000_000n + BigInt(index)),
    endTimeUnixNano: '18446744073709551615',
    attributes: [
      { key: 'agentv.case_id', value: { stringValue: `case-${index}` } },
      { key: 'agentv.passed', value: { boolValue: index % 2 === 0 } },
      { key: 'agentv.attempts', value: { intValue: String(index) } },
      { key: 'agentv.score', value: { doubleValue: index / 7 } },
    ],
    status: { code: 1 },
    ...extra,
  };
}

/** The request as the official messages encode it (ids from hex to bytes). */
function officialBytes(request: OtlpJsonRequest): Uint8Array {
  const { ExportTraceServiceRequest } = traceMessages();
  const bytes = (hex: string) => Buffer.from(hex, 'hex');
  const converted = {
    resourceSpans: request.resourceSpans.map((group) => ({
      ...group,
      scopeSpans: group.scopeSpans.map((scope) => ({
        ...scope,
        spans: scope.spans.map((one) => ({
          ...one,
          traceId: bytes(one.traceId),
          spanId: bytes(one.spanId),
          ...(one.parentSpanId === undefined ? {} : { parentSpanId: bytes(one.parentSpanId) }),
          ...(one.links === undefined
            ? {}
            : {
                links: one.links.map((link) => ({
                  ...link,
                  traceId: bytes(link.traceId),
                  spanId: bytes(link.spanId),
                })),
              }),
        })),
      })),
    })),
  };
  return ExportTraceServiceRequest.encode(converted).finish();
}

function decoded(bytes: Uint8Array): unknown {
  const { ExportTraceServiceRequest } = traceMessages();
  return (
    ExportTraceServiceRequest as unknown as {
      toObject(message: unknown, options: object): unknown;
    }
  ).toObject(ExportTraceServiceRequest.decode(bytes), { longs: String, bytes: String });
}

describe('encodeProtobuf', () => {
  it('decodes to what the official messages encode, field for field', () => {
    const long = `${'é'.repeat(9000)}🙂`;
    const spans = [
      span(0),
      span(1, { parentSpanId: 'ab'.repeat(8), status: { code: 2, message: 'grader crashed' } }),
      span(2, {
        name: '',
        attributes: [
          { key: 'big', value: { intValue: '9007199254740993' } },
          { key: 'negative', value: { intValue: '-42' } },
          { key: 'zero', value: { intValue: '0' } },
          { key: 'long', value: { stringValue: long } },
          { key: 'empty', value: { stringValue: '' } },
          { key: 'nan', value: { doubleValue: Number.NaN } },
        ],
        links: [
          { traceId: 'c'.repeat(32), spanId: 'd'.repeat(16), attributes: [] },
          {
            traceId: 'e'.repeat(32),
            spanId: 'f'.repeat(16),
            attributes: [{ key: 'link.kind', value: { stringValue: 'agent' } }],
          },
        ],
      }),
      // Enough spans that the scope's length takes a three-byte varint.
      ...Array.from({ length: 400 }, (_, index) => span(index + 3)),
    ];
    const request = traceRequest(
      spans,
      [
        { key: 'service.name', value: { stringValue: 'agentv' } },
        { key: 'agentv.run_id', value: { stringValue: '2026-11-27T06-00-00' } },
      ],
      '5.0.0',
    );
    const ours = encodeProtobuf(request);
    expect(ours.byteLength).toBeGreaterThan(0x4000);
    expect(decoded(ours)).toEqual(decoded(officialBytes(request)));
  });

  it('writes an id that is not hex as zero bytes of its length, never failing the batch', () => {
    const request = traceRequest([span(0, { parentSpanId: 'not hex!' })], [], '5.0.0');
    const message = traceMessages().ExportTraceServiceRequest.decode(encodeProtobuf(request));
    const parent = message.resourceSpans[0].scopeSpans[0].spans[0].parentSpanId;
    expect(Buffer.from(parent).toString('hex')).toBe('00000000');
  });
});
