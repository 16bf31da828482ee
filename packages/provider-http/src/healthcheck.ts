import { describeFetchError, ProviderError } from '@agentv/core/provider-utils';
import type { HttpHealthcheck } from './http-settings.js';
import type { Redactor } from './redact.js';

/**
 * Sends the health check request with the target's headers: it passes on a
 * status in `expectStatus` (default any 2xx). Failures throw a non-retryable
 * `ProviderError` saying what was probed and how it failed; the orchestrator
 * names the target and stops before the first case.
 */
export async function runHttpHealthcheck(
  healthcheck: HttpHealthcheck,
  headers: Record<string, string>,
  redact: Redactor,
): Promise<void> {
  const subject = `${healthcheck.method} ${redact(healthcheck.url)}`;
  let status: number;
  try {
    const response = await fetch(healthcheck.url, {
      method: healthcheck.method,
      headers,
      signal: AbortSignal.timeout(healthcheck.timeoutSeconds * 1000),
    });
    status = response.status;
    await response.body?.cancel();
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    throw new ProviderError(
      timedOut
        ? `${subject} timed out after ${healthcheck.timeoutSeconds} s`
        : `${subject} failed: ${redact(describeFetchError(error))}`,
      {
        retryable: false,
        cause: error,
        hint: 'start the agent service, or fix healthcheck.url',
      },
    );
  }
  const expected = healthcheck.expectStatus;
  const passed = expected ? expected.includes(status) : status >= 200 && status <= 299;
  if (passed) return;
  throw new ProviderError(
    `${subject} returned HTTP ${status} (expected ${expected ? expected.join(' or ') : '2xx'})`,
    {
      retryable: false,
      hint: 'the service answered but is not healthy; check its logs, or healthcheck.expect_status',
    },
  );
}
