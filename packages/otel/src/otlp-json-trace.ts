import type { CollectedTrace } from '@agentv/core/provider-utils';
import { decodeOtlpJson } from './decode-otlp.js';
import type { OtlpSpan } from './otlp-span.js';
import { spanEvents } from './span-events.js';

/**
 * The trace events of an OTLP/JSON file (one `ExportTraceServiceRequest`, or one per
 * line as the OpenTelemetry Collector's file exporter writes them), mapped as spans that
 * come through the receiver are. Throws when a line is not such a request.
 */
export function otlpJsonTrace(text: string): CollectedTrace {
  const trimmed = text.trim();
  const lines = trimmed.includes('\n') && !isOneJson(trimmed) ? trimmed.split('\n') : [trimmed];
  const spans: OtlpSpan[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      spans.push(...decodeOtlpJson(line));
    } catch (error) {
      throw new Error(
        lines.length > 1
          ? `line ${index + 1}: ${(error as Error).message}`
          : (error as Error).message,
      );
    }
  });
  return spanEvents(spans);
}

function isOneJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
