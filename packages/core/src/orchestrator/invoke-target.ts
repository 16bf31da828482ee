import { AgentvError } from '../errors/agentv-error.js';
import { ProviderError } from '../errors/provider-error.js';
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
 * limiter lets the call go (a wait for the rate limit is not the call's time). A case with
 * `trace: { source, path }` is answered from its recorded session instead: no call, no limiter.
 */
export async function invokeTarget(
  provider: Provider,
  request: ProviderRequest,
  planned: PlannedCase,
  run: RunState,
  signal: AbortSignal | undefined,
  started?: () => void,
): Promise<ProviderResponse> {
  const recorded = planned.evalCase.recordedTrace;
  if (recorded !== undefined) {
    started?.();
    return readRecorded(run, recorded);
  }
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

async function readRecorded(
  run: RunState,
  ref: NonNullable<PlannedCase['evalCase']['recordedTrace']>,
): Promise<ProviderResponse> {
  const reader = run.options.recordedTraces;
  if (reader === undefined) {
    throw new ProviderError(
      `the case's trace: { source: ${ref.source} } cannot be read: the run has no reader of recorded sessions`,
      {
        retryable: false,
        hint: 'pass `recordedTraces` to runEvaluation; agentv eval and agentv grade do it for you',
      },
    );
  }
  try {
    return await reader.read(ref);
  } catch (error) {
    // Reading the same file again gives the same answer: never retried.
    if (error instanceof AgentvError) {
      const hint = error.hint === undefined ? '' : ` (${error.hint})`;
      throw new ProviderError(`${error.message}${hint}`, { retryable: false, cause: error });
    }
    throw new ProviderError(`could not read ${ref.written}: ${String(error)}`, {
      retryable: false,
    });
  }
}
