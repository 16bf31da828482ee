import { traceMessages } from './otlp-proto.js';
import type { OtlpSpan, OtlpSpanEvent } from './otlp-span.js';

/** A payload that is not an OTLP trace export request. */
export class MalformedOtlpError extends Error {}

// biome-ignore lint/suspicious/noExplicitAny: wire values of either encoding are checked field by field
type Wire = any;

/** The spans of an `ExportTraceServiceRequest` in OTLP/JSON (ids in hex, times as strings or numbers). */
export function decodeOtlpJson(text: string): OtlpSpan[] {
  let request: Wire;
  try {
    request = JSON.parse(text);
  } catch (error) {
    throw new MalformedOtlpError(`not JSON: ${(error as Error).message}`);
  }
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    throw new MalformedOtlpError('not an ExportTraceServiceRequest object');
  }
  return spansOf(request, jsonId);
}

/** The spans of an `ExportTraceServiceRequest` in OTLP/protobuf. */
export function decodeOtlpProtobuf(body: Uint8Array): OtlpSpan[] {
  let request: Wire;
  try {
    request = traceMessages().ExportTraceServiceRequest.decode(body);
  } catch (error) {
    throw new MalformedOtlpError(`not an OTLP protobuf message: ${(error as Error).message}`);
  }
  return spansOf(request, bytesId);
}

function spansOf(request: Wire, id: (value: unknown) => string): OtlpSpan[] {
  const spans: OtlpSpan[] = [];
  const resourceSpans = request.resourceSpans ?? [];
  if (!Array.isArray(resourceSpans)) throw new MalformedOtlpError('resourceSpans is not a list');
  for (const group of resourceSpans) {
    const resource = attributesOf(group?.resource?.attributes);
    for (const scope of group?.scopeSpans ?? []) {
      for (const span of scope?.spans ?? []) {
        const traceId = id(span?.traceId);
        const spanId = id(span?.spanId);
        if (traceId.length !== 32 || spanId.length !== 16) {
          throw new MalformedOtlpError('a span has no valid traceId or spanId');
        }
        const parent = span.parentSpanId == null ? '' : id(span.parentSpanId);
        const decoded: OtlpSpan = {
          traceId,
          spanId,
          name: typeof span.name === 'string' ? span.name : '',
          startMs: nanosToMs(span.startTimeUnixNano),
          endMs: nanosToMs(span.endTimeUnixNano),
          attributes: attributesOf(span.attributes),
          resource,
          statusCode: statusCode(span.status?.code),
          events: eventsOf(span.events),
        };
        if (parent.length === 16) decoded.parentSpanId = parent;
        const message = span.status?.message;
        if (typeof message === 'string' && message !== '') decoded.statusMessage = message;
        spans.push(decoded);
      }
    }
  }
  return spans;
}

// Most spans have no events: they share one empty list, never changed.
const NO_EVENTS: OtlpSpanEvent[] = [];

function eventsOf(events: Wire): OtlpSpanEvent[] {
  if (!Array.isArray(events) || events.length === 0) return NO_EVENTS;
  return events.map((event) => ({
    name: typeof event?.name === 'string' ? event.name : '',
    timeMs: nanosToMs(event?.timeUnixNano),
    attributes: attributesOf(event?.attributes),
  }));
}

/** Key-value pairs of OTLP attributes as plain values (ints beyond 2^53 stay strings). */
export function attributesOf(list: Wire): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  if (!Array.isArray(list)) return attributes;
  for (const pair of list) {
    if (typeof pair?.key === 'string') attributes[pair.key] = anyValue(pair.value);
  }
  return attributes;
}

function anyValue(value: Wire): unknown {
  if (value == null || typeof value !== 'object') return undefined;
  if (value.stringValue != null) return String(value.stringValue);
  if (value.boolValue != null) return Boolean(value.boolValue);
  if (value.intValue != null) return integer(value.intValue);
  if (value.doubleValue != null) return Number(value.doubleValue);
  if (value.arrayValue != null) return (value.arrayValue.values ?? []).map(anyValue);
  if (value.kvlistValue != null) return attributesOf(value.kvlistValue.values);
  if (value.bytesValue != null) {
    return typeof value.bytesValue === 'string'
      ? value.bytesValue
      : Buffer.from(value.bytesValue).toString('base64');
  }
  return undefined;
}

function integer(value: Wire): number | string {
  const number = typeof value === 'number' ? value : Number(String(value));
  return Number.isSafeInteger(number) ? number : String(value);
}

/** Nanoseconds (a string, number or protobufjs Long) as fractional milliseconds. */
function nanosToMs(value: Wire): number {
  if (value == null) return 0;
  if (typeof value === 'number') return value / 1e6;
  if (typeof value === 'object' && typeof value.high === 'number') {
    // A Long: high * 2^32 + low, unsigned.
    return ((value.high >>> 0) * 4294967296 + (value.low >>> 0)) / 1e6;
  }
  const text = String(value);
  if (!/^\d+$/.test(text)) throw new MalformedOtlpError(`not a time in nanoseconds: ${text}`);
  // Split so that the milliseconds keep their precision in a double.
  return text.length > 6
    ? Number(text.slice(0, -6)) + Number(text.slice(-6)) / 1e6
    : Number(text) / 1e6;
}

function statusCode(code: Wire): number {
  if (typeof code === 'number') return code;
  if (code === 'STATUS_CODE_ERROR') return 2;
  if (code === 'STATUS_CODE_OK') return 1;
  return 0;
}

const LOWER_HEX = /^[0-9a-f]*$/;
const ANY_HEX = /^[0-9a-fA-F]*$/;

function jsonId(value: unknown): string {
  if (typeof value !== 'string') return '';
  // Exporters write lowercase hex: that string is the id as it is.
  if (LOWER_HEX.test(value)) return value;
  if (ANY_HEX.test(value)) return value.toLowerCase();
  // Some exporters send ids base64-encoded (the protobuf JSON mapping of bytes).
  return Buffer.from(value, 'base64').toString('hex');
}

function bytesId(value: unknown): string {
  if (!(value instanceof Uint8Array)) return '';
  // A view of the decoded bytes, not a copy.
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
}
