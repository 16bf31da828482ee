import { open } from 'node:fs/promises';
import { formatBytes, type ProviderResponse } from '@agentv/core/provider-utils';

/**
 * The response with the spans of `{TRACE_FILE}` (OTLP/JSON, as an OpenTelemetry file
 * exporter writes it: one `ExportTraceServiceRequest`, or one per line) added to its
 * trace, in time order, and its usage when it reported none. A file the agent did not
 * write adds nothing; one that cannot be read as OTLP, or is larger than `maxBytes`,
 * adds a warning instead: the answer is graded all the same.
 */
export async function withTraceFile(
  response: ProviderResponse,
  path: string,
  maxBytes: number,
): Promise<ProviderResponse> {
  let text: string;
  try {
    const file = await open(path, 'r');
    try {
      const { size } = await file.stat();
      if (size > maxBytes) {
        return warned(
          response,
          `{TRACE_FILE} is ${formatBytes(size)}, more than max_output_bytes (${formatBytes(maxBytes)}); its spans were left out`,
        );
      }
      text = await file.readFile('utf8');
    } finally {
      await file.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return response;
    return warned(response, `could not read {TRACE_FILE}: ${(error as Error).message}`);
  }
  if (text.trim() === '') return response;
  // Loaded only by agents that write a trace file.
  const { otlpJsonTrace } = await import('@agentv/otel');
  let collected: ReturnType<typeof otlpJsonTrace>;
  try {
    collected = otlpJsonTrace(text);
  } catch (error) {
    return warned(response, `{TRACE_FILE} is not OTLP/JSON: ${(error as Error).message}`);
  }
  if (collected.spanCount === 0) return response;
  const own = response.trace ?? [];
  const trace =
    own.length === 0
      ? collected.trace
      : [...own, ...collected.trace].sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  const merged: ProviderResponse = { ...response, trace };
  if (response.usage === undefined && collected.usage !== undefined) merged.usage = collected.usage;
  return merged;
}

function warned(response: ProviderResponse, warning: string): ProviderResponse {
  return { ...response, warnings: [...(response.warnings ?? []), warning] };
}
