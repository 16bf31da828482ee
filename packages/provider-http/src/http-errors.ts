import { ProviderError, parseRetryAfterMs } from '@agentv/core/provider-utils';

/**
 * The `ProviderError` for a response whose status is not 2xx: 429, 408 and
 * 5xx are retryable (with `retryAfterMs` from `Retry-After`), other statuses
 * are not and get a hint. `bodyExcerpt` is already redacted.
 */
export function statusError(
  subject: string,
  status: number,
  headers: Record<string, string>,
  bodyExcerpt: string,
): ProviderError {
  const message = `${subject} returned HTTP ${status}${bodyExcerpt ? `: ${bodyExcerpt}` : ''}`;
  const details = { status };
  if (status === 429 || status === 408 || status >= 500) {
    const retryAfterMs = parseRetryAfterMs(headers);
    return new ProviderError(message, {
      retryable: true,
      details,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
  return new ProviderError(message, { retryable: false, details, hint: hintFor(status) });
}

function hintFor(status: number): string {
  if (status === 401 || status === 403) {
    return "the server refused the credentials: check the target's headers and the variables they use";
  }
  if (status === 404 || status === 405) return "check the target's url and method";
  return "check the target's body: the server refused the request";
}
