import type { OtlpJsonSpan } from './case-spans.js';
import { traceMessages } from './otlp-proto.js';

/** An `ExportTraceServiceRequest` in OTLP/JSON. */
export interface OtlpJsonRequest {
  resourceSpans: {
    resource: { attributes: OtlpJsonSpan['attributes'] };
    scopeSpans: { scope: { name: string; version: string }; spans: OtlpJsonSpan[] }[];
  }[];
}

/** The request for `spans` of one resource (`service.name` = agentv, the run's id). */
export function traceRequest(
  spans: OtlpJsonSpan[],
  resource: OtlpJsonSpan['attributes'],
  version: string,
): OtlpJsonRequest {
  return {
    resourceSpans: [
      {
        resource: { attributes: resource },
        scopeSpans: [{ scope: { name: 'agentv', version }, spans }],
      },
    ],
  };
}

/**
 * The same request in OTLP/protobuf, encoded by the official messages (hex ids become bytes;
 * times stay decimal strings, which protobufjs writes as fixed64). Encoded as it is, without
 * `fromObject`, whose conversions cost more than the encoding.
 */
export function encodeProtobuf(request: OtlpJsonRequest): Uint8Array {
  const { ExportTraceServiceRequest } = traceMessages();
  const bytes = {
    resourceSpans: request.resourceSpans.map((group) => ({
      ...group,
      scopeSpans: group.scopeSpans.map((scope) => ({
        ...scope,
        spans: scope.spans.map((span) => ({
          ...span,
          traceId: Buffer.from(span.traceId, 'hex'),
          spanId: Buffer.from(span.spanId, 'hex'),
          ...(span.parentSpanId === undefined
            ? {}
            : { parentSpanId: Buffer.from(span.parentSpanId, 'hex') }),
          ...(span.links === undefined
            ? {}
            : {
                links: span.links.map((link) => ({
                  ...link,
                  traceId: Buffer.from(link.traceId, 'hex'),
                  spanId: Buffer.from(link.spanId, 'hex'),
                })),
              }),
        })),
      })),
    })),
  };
  return ExportTraceServiceRequest.encode(bytes).finish();
}
