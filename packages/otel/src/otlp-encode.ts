import type { OtlpJsonSpan, OtlpKeyValue } from './case-spans.js';

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

// The OTLP/protobuf encoding of the export's requests, written straight into one buffer.
// The messages and field numbers are opentelemetry/proto/{collector/trace,trace,common,
// resource}/v1 (ExportTraceServiceRequest, ResourceSpans, ScopeSpans, Span, Span.Link, Status,
// Resource, InstrumentationScope, KeyValue, AnyValue); only the fields the export sets are
// written. Sizes are measured in a first pass, in the order the second pass writes the
// messages, so every length prefix is known when it is written and nothing is copied twice.

const VARINT = 0;
const FIXED64 = 1;
const LEN = 2;

/**
 * The same request in OTLP/protobuf. Written here rather than by protobufjs' generated
 * messages (still used to decode what agents send): those cost ~0.2 ms per case, more than
 * the rest of the export together.
 */
export function encodeProtobuf(request: OtlpJsonRequest): Uint8Array {
  const sizes: number[] = [];
  let total = 0;
  for (const group of request.resourceSpans) total += lenSize(1, resourceSpansSize(group, sizes));
  const out = new Writer(total, sizes);
  for (const group of request.resourceSpans) out.resourceSpans(1, group);
  if (out.pos !== total) throw new Error(`OTLP encoding wrote ${out.pos} of ${total} bytes`);
  return out.buf;
}

type ResourceSpans = OtlpJsonRequest['resourceSpans'][number];
type ScopeSpans = ResourceSpans['scopeSpans'][number];
type Link = NonNullable<OtlpJsonSpan['links']>[number];

// --- Sizes: each message pushes its size's slot before its children push theirs. ---

function resourceSpansSize(group: ResourceSpans, sizes: number[]): number {
  const slot = sizes.push(0) - 1;
  let size = lenSize(1, attributesHolderSize(group.resource.attributes, sizes));
  for (const scope of group.scopeSpans) size += lenSize(2, scopeSpansSize(scope, sizes));
  sizes[slot] = size;
  return size;
}

/** Resource: `attributes` = 1. */
function attributesHolderSize(attributes: readonly OtlpKeyValue[], sizes: number[]): number {
  const slot = sizes.push(0) - 1;
  const size = keyValuesSize(1, attributes, sizes);
  sizes[slot] = size;
  return size;
}

function scopeSpansSize(scope: ScopeSpans, sizes: number[]): number {
  const slot = sizes.push(0) - 1;
  const scopeSize = stringSize(1, scope.scope.name) + stringSize(2, scope.scope.version);
  sizes.push(scopeSize);
  let size = lenSize(1, scopeSize);
  for (const span of scope.spans) size += lenSize(2, spanSize(span, sizes));
  sizes[slot] = size;
  return size;
}

function spanSize(span: OtlpJsonSpan, sizes: number[]): number {
  const slot = sizes.push(0) - 1;
  let size =
    hexSize(1, span.traceId) +
    hexSize(2, span.spanId) +
    (span.parentSpanId === undefined ? 0 : hexSize(4, span.parentSpanId)) +
    stringSize(5, span.name) +
    1 +
    varintSize(span.kind) +
    2 * (1 + 8) +
    keyValuesSize(9, span.attributes, sizes);
  for (const link of span.links ?? []) size += lenSize(13, linkSize(link, sizes));
  const status = statusSize(span.status);
  sizes.push(status);
  size += lenSize(15, status);
  sizes[slot] = size;
  return size;
}

function linkSize(link: Link, sizes: number[]): number {
  const slot = sizes.push(0) - 1;
  const size =
    hexSize(1, link.traceId) + hexSize(2, link.spanId) + keyValuesSize(4, link.attributes, sizes);
  sizes[slot] = size;
  return size;
}

function statusSize(status: OtlpJsonSpan['status']): number {
  return (
    (status.message === undefined ? 0 : stringSize(2, status.message)) + 1 + varintSize(status.code)
  );
}

function keyValuesSize(field: number, list: readonly OtlpKeyValue[], sizes: number[]): number {
  let size = 0;
  for (const { key, value } of list) {
    const valueSize = anyValueSize(value);
    const keyValue = stringSize(1, key) + lenSize(2, valueSize);
    sizes.push(keyValue, valueSize);
    size += lenSize(field, keyValue);
  }
  return size;
}

function anyValueSize(value: OtlpKeyValue['value']): number {
  if ('stringValue' in value) return stringSize(1, value.stringValue);
  if ('boolValue' in value) return 2;
  if ('intValue' in value) return 1 + int64Size(value.intValue);
  return 1 + 8;
}

// --- Sizes of fields ---

function lenSize(field: number, length: number): number {
  return varintSize(field << 3) + varintSize(length) + length;
}

function stringSize(field: number, value: string): number {
  return lenSize(field, Buffer.byteLength(value, 'utf8'));
}

/** Ids are hex in OTLP/JSON and bytes in protobuf. */
function hexSize(field: number, hex: string): number {
  return lenSize(field, hex.length >>> 1);
}

function varintSize(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  if (value < 0x10000000) return 4;
  return 5;
}

/** An int64 (a decimal string in OTLP/JSON) as a varint: negatives take ten bytes. */
function int64Size(decimal: string): number {
  let value = int64(decimal);
  let size = 1;
  while (value >= 0x80n) {
    value >>= 7n;
    size++;
  }
  return size;
}

/** Two's complement of a decimal int64; 0 for what is not one (only AgentV's own values come here). */
function int64(decimal: string): bigint {
  try {
    return BigInt.asUintN(64, BigInt(decimal));
  } catch {
    return 0n;
  }
}

// --- Writing, in the order the sizes were measured ---

class Writer {
  readonly buf: Buffer;
  pos = 0;
  private next = 0;

  constructor(
    size: number,
    private readonly sizes: readonly number[],
  ) {
    // Zeroed: an id that is not valid hex leaves zero bytes, never stale memory.
    this.buf = Buffer.alloc(size);
  }

  resourceSpans(field: number, group: ResourceSpans): void {
    this.header(field);
    this.header(1);
    this.keyValues(1, group.resource.attributes);
    for (const scope of group.scopeSpans) {
      this.header(2);
      this.header(1);
      this.string(1, scope.scope.name);
      this.string(2, scope.scope.version);
      for (const span of scope.spans) this.span(span);
    }
  }

  private span(span: OtlpJsonSpan): void {
    this.header(2);
    this.hex(1, span.traceId);
    this.hex(2, span.spanId);
    if (span.parentSpanId !== undefined) this.hex(4, span.parentSpanId);
    this.string(5, span.name);
    this.tag(6, VARINT);
    this.varint(span.kind);
    this.fixed64(7, span.startTimeUnixNano);
    this.fixed64(8, span.endTimeUnixNano);
    this.keyValues(9, span.attributes);
    for (const link of span.links ?? []) {
      this.header(13);
      this.hex(1, link.traceId);
      this.hex(2, link.spanId);
      this.keyValues(4, link.attributes);
    }
    this.header(15);
    if (span.status.message !== undefined) this.string(2, span.status.message);
    this.tag(3, VARINT);
    this.varint(span.status.code);
  }

  private keyValues(field: number, list: readonly OtlpKeyValue[]): void {
    for (const { key, value } of list) {
      this.header(field);
      this.string(1, key);
      this.header(2);
      if ('stringValue' in value) this.string(1, value.stringValue);
      else if ('boolValue' in value) {
        this.tag(2, VARINT);
        this.varint(value.boolValue ? 1 : 0);
      } else if ('intValue' in value) {
        this.tag(3, VARINT);
        this.int64(value.intValue);
      } else {
        this.tag(4, FIXED64);
        this.pos = this.buf.writeDoubleLE(value.doubleValue, this.pos);
      }
    }
  }

  /** The tag and length of the next measured message. */
  private header(field: number): void {
    this.tag(field, LEN);
    this.varint(this.sizes[this.next++]!);
  }

  private tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  private varint(value: number): void {
    let rest = value;
    while (rest >= 0x80) {
      this.buf[this.pos++] = (rest & 0x7f) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.buf[this.pos++] = rest;
  }

  private int64(decimal: string): void {
    let value = int64(decimal);
    while (value >= 0x80n) {
      this.buf[this.pos++] = Number(value & 0x7fn) | 0x80;
      value >>= 7n;
    }
    this.buf[this.pos++] = Number(value);
  }

  private fixed64(field: number, decimal: string): void {
    this.tag(field, FIXED64);
    this.pos = this.buf.writeBigUInt64LE(BigInt.asUintN(64, BigInt(decimal)), this.pos);
  }

  private string(field: number, value: string): void {
    const length = Buffer.byteLength(value, 'utf8');
    this.tag(field, LEN);
    this.varint(length);
    this.pos += this.buf.write(value, this.pos, length, 'utf8');
  }

  private hex(field: number, hex: string): void {
    const length = hex.length >>> 1;
    this.tag(field, LEN);
    this.varint(length);
    this.buf.write(hex, this.pos, length, 'hex');
    this.pos += length;
  }
}
