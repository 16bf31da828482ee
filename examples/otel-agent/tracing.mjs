// The OpenTelemetry setup any traced Node program has: a tracer provider whose resource
// reads OTEL_RESOURCE_ATTRIBUTES, and the official OTLP exporter, which reads
// OTEL_EXPORTER_OTLP_ENDPOINT. Nothing in it knows about AgentV.
import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/** Starts tracing for `serviceName`; call `shutdown()` before exiting so the last batch is sent. */
export function startTracing(serviceName) {
  const protocol =
    process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? process.env.OTEL_EXPORTER_OTLP_PROTOCOL;
  const exporter = protocol === 'http/json' ? new JsonExporter() : new ProtobufExporter();
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }).merge(
      detectResources({ detectors: [envDetector] }),
    ),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  provider.register();
  return { tracer: trace.getTracer(serviceName), shutdown: () => provider.shutdown() };
}
