import type { Provider } from '../provider/provider.js';
import type { ProviderRequest } from '../provider/provider-request.js';
import type { ProviderResponse } from '../provider/provider-response.js';
import type { CollectedTrace } from '../provider/trace-intake.js';
import type { PlannedCase } from './plan-run.js';
import type { RunState } from './run-state.js';

/** How long a call of a `trace: { source: otlp }` target waits for late span batches by default. */
export const DEFAULT_TRACE_GRACE_MS = 50;

/**
 * `provider.invoke`, and for a target with `trace: { source: otlp }` the call's
 * spans: the request carries the call's trace context, and once the call
 * answered (and the grace period passed) the spans that came for it join the
 * response's trace and give it a usage when it reported none.
 */
export async function invokeTraced(
  provider: Provider,
  request: ProviderRequest,
  planned: PlannedCase,
  run: RunState,
): Promise<ProviderResponse> {
  const source = planned.target.trace;
  const intake = run.options.traceIntake;
  if (source === undefined || intake === undefined) return provider.invoke(request);
  const call = intake.openCall({
    evalCaseId: request.evalCaseId,
    attempt: request.attempt,
    target: planned.target.name,
  });
  request.traceContext = call.context;
  let response: ProviderResponse;
  try {
    response = await provider.invoke(request);
  } catch (error) {
    await call.finish(0);
    throw error;
  }
  return withCollectedTrace(response, await call.finish(source.graceMs ?? DEFAULT_TRACE_GRACE_MS));
}

/** The response with the spans' events merged into its trace in time order. */
export function withCollectedTrace(
  response: ProviderResponse,
  collected: CollectedTrace,
): ProviderResponse {
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
