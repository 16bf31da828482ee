import { randomBytes } from 'node:crypto';
import type { TraceContext, TraceIntake, TraceIntakeCall } from '@agentv/core/provider-utils';
import { type OtlpReceiver, startOtlpReceiver } from './otlp-receiver.js';
import type { OtlpSpan } from './otlp-span.js';
import { createSpanCollector, type SpanCollector } from './span-events.js';

export interface TraceIntakeOptions {
  /** The environment calls run in: its `OTEL_RESOURCE_ATTRIBUTES` are kept before AgentV's. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Most bytes of one request body (default 16 MiB). */
  maxBodyBytes?: number;
}

/** How long `finish` waits at most for a request that was being read when the grace period ended. */
const IN_FLIGHT_WAIT_MS = 2_000;

/**
 * AgentV's OTLP receiver for a run (`RunEvaluationOptions.traceIntake`). Each
 * call gets a new trace id; a span belongs to the call whose trace id it carries
 * (`TRACEPARENT`, a `traceparent` header), or whose id its resource names
 * (`agentv.trace_id` in `OTEL_RESOURCE_ATTRIBUTES`, for agents that start their
 * own trace). Other spans are refused (a partial success).
 */
export function createTraceIntake(options: TraceIntakeOptions = {}): TraceIntake {
  // Each call's spans are mapped as they arrive: only their events are kept.
  const calls = new Map<string, SpanCollector>();
  let receiver: OtlpReceiver | undefined;
  const inherited = options.env?.OTEL_RESOURCE_ATTRIBUTES?.trim();
  const onSpans = (spans: OtlpSpan[]) => {
    let rejected = 0;
    const byOwner = new Map<SpanCollector, OtlpSpan[]>();
    for (const span of spans) {
      const owner = calls.get(span.traceId) ?? callOfResource(calls, span);
      if (owner === undefined) {
        rejected++;
        continue;
      }
      const list = byOwner.get(owner);
      if (list === undefined) byOwner.set(owner, [span]);
      else list.push(span);
    }
    for (const [owner, owned] of byOwner) owner.add(owned);
    return { rejected, reason: 'the trace id belongs to no running AgentV call' };
  };
  return {
    async start(start: { port?: number } = {}) {
      receiver ??= await startOtlpReceiver({
        onSpans,
        ...(start.port === undefined ? {} : { port: start.port }),
        ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
      });
    },
    openCall({ evalCaseId, attempt, target }): TraceIntakeCall {
      if (receiver === undefined) throw new Error('the OTLP receiver was not started');
      const started = receiver;
      const traceId = randomBytes(16).toString('hex');
      const spanId = randomBytes(8).toString('hex');
      const collector = createSpanCollector();
      calls.set(traceId, collector);
      const traceparent = `00-${traceId}-${spanId}-01`;
      const attributes = [
        `agentv.case_id=${encodeURIComponent(evalCaseId)}`,
        `agentv.attempt=${attempt + 1}`,
        `agentv.target=${encodeURIComponent(target)}`,
        `agentv.trace_id=${traceId}`,
      ].join(',');
      const context: TraceContext = {
        traceparent,
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: started.endpoint,
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${started.endpoint}/v1/traces`,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
          OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
          OTEL_TRACES_EXPORTER: 'otlp',
          TRACEPARENT: traceparent,
          OTEL_RESOURCE_ATTRIBUTES: inherited ? `${inherited},${attributes}` : attributes,
        },
      };
      return {
        context,
        async finish(graceMs) {
          if (graceMs > 0) await delay(graceMs);
          // A batch being read as the grace period ends still counts.
          await Promise.race([started.settled(), delay(IN_FLIGHT_WAIT_MS)]);
          calls.delete(traceId);
          return collector.finish();
        },
      };
    },
    async close() {
      calls.clear();
      await receiver?.close();
      receiver = undefined;
    },
  };
}

function callOfResource(
  calls: Map<string, SpanCollector>,
  span: OtlpSpan,
): SpanCollector | undefined {
  const id = span.resource['agentv.trace_id'];
  return typeof id === 'string' ? calls.get(id) : undefined;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
