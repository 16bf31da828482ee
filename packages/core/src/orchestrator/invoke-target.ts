import type { Provider } from '../provider/provider.js';
import type { ProviderRequest } from '../provider/provider-request.js';
import type { ProviderResponse } from '../provider/provider-response.js';
import type { PlannedCase } from './plan-run.js';
import { rateLimiterFor } from './rate-limiter-for.js';
import type { RunState } from './run-state.js';
import { invokeTraced } from './traced-call.js';

/**
 * One call of a case's target, as every case and conversation turn makes it: paced by the
 * target's rate limiter (when it has one, or from its first HTTP 429), and traced through the
 * run's OTLP intake for a `trace: { source: otlp }` target. `started` is called once the
 * limiter lets the call go (a wait for the rate limit is not the call's time).
 */
export async function invokeTarget(
  provider: Provider,
  request: ProviderRequest,
  planned: PlannedCase,
  run: RunState,
  signal: AbortSignal | undefined,
  started?: () => void,
): Promise<ProviderResponse> {
  const limiter = rateLimiterFor(run, planned.target);
  await limiter?.acquire(signal);
  started?.();
  try {
    const response = await invokeTraced(provider, request, planned, run);
    limiter?.release({ usage: response.usage });
    return response;
  } catch (error) {
    if (limiter !== undefined) limiter.release({ error });
    else rateLimiterFor(run, planned.target, error)?.refused(error);
    throw error;
  }
}
