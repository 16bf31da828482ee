import { ProviderError } from '../errors/provider-error.js';
import { describeFetchError } from '../util/describe-fetch-error.js';

/** Seconds an HTTP health check may take when its settings give none. */
export const DEFAULT_HTTP_HEALTHCHECK_SECONDS = 10;

/** An HTTP health check: one request, sent before the first case. */
export interface HttpHealthcheck {
  url: string;
  /** Default `GET`. */
  method?: string;
  /** Sent with the request (an `http` target sends its own headers). */
  headers?: Readonly<Record<string, string>>;
  /** The statuses that pass (a target's `healthcheck.expect_status`); default any 2xx. */
  expectStatus?: readonly number[];
  /** Default `DEFAULT_HTTP_HEALTHCHECK_SECONDS`. */
  timeoutSeconds?: number;
}

/**
 * Sends `check` once; a status in `expectStatus` (default any 2xx) passes. A
 * failure throws a non-retryable `ProviderError` saying what was probed and how
 * it failed (`GET http://127.0.0.1:8080/health returned HTTP 503 (expected
 * 2xx)`, `… timed out after 10s`, `… failed: ECONNREFUSED`), with a hint; the
 * orchestrator names the target and stops before the first case. `redact`
 * masks the target's secrets in the URL and the network error shown.
 */
export async function runHttpHealthcheck(
  check: HttpHealthcheck,
  redact: (text: string) => string = (text) => text,
): Promise<void> {
  const method = check.method ?? 'GET';
  const timeoutSeconds = check.timeoutSeconds ?? DEFAULT_HTTP_HEALTHCHECK_SECONDS;
  const subject = `${method} ${redact(check.url)}`;
  let status: number;
  try {
    const response = await fetch(check.url, {
      method,
      ...(check.headers === undefined ? {} : { headers: check.headers }),
      signal: AbortSignal.timeout(timeoutSeconds * 1000),
    });
    status = response.status;
    await response.body?.cancel();
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    throw new ProviderError(
      timedOut
        ? `${subject} timed out after ${timeoutSeconds}s`
        : `${subject} failed: ${redact(describeFetchError(error))}`,
      { retryable: false, cause: error, hint: 'start the agent service, or fix healthcheck.url' },
    );
  }
  const expected = check.expectStatus;
  if (expected ? expected.includes(status) : status >= 200 && status <= 299) return;
  throw new ProviderError(
    `${subject} returned HTTP ${status} (expected ${expected ? expected.join(' or ') : '2xx'})`,
    {
      retryable: false,
      // Only a check that sets expect_status can change it; for the default, the service is the problem.
      hint: `the service answered but is not healthy; check its logs${expected ? ', or healthcheck.expect_status' : ''}`,
    },
  );
}
