import { createRequire } from 'node:module';

/**
 * The OTLP trace messages compiled by the OpenTelemetry project from its
 * official `.proto` files (the static protobufjs module `@opentelemetry/otlp-transformer`
 * ships). Resolved from this file: the CLI's bundle keeps the package external.
 */
// biome-ignore lint/suspicious/noExplicitAny: generated protobufjs code without types in the package's exports
type Message = any;

export interface OtlpMessageType {
  decode(data: Uint8Array): Message;
  encode(message: Message): { finish(): Uint8Array };
  fromObject(object: unknown): Message;
}

interface TraceMessages {
  ExportTraceServiceRequest: OtlpMessageType;
  ExportTraceServiceResponse: OtlpMessageType;
}

let loaded: TraceMessages | undefined;

/** `ExportTraceServiceRequest` / `…Response` of `opentelemetry.proto.collector.trace.v1`. */
export function traceMessages(): TraceMessages {
  if (loaded === undefined) {
    const require = createRequire(import.meta.url);
    const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js');
    loaded = root.opentelemetry.proto.collector.trace.v1 as TraceMessages;
  }
  return loaded;
}
