/**
 * The reason a `fetch` failed, from the error's cause when it has one:
 * `ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:9)` rather than `fetch failed`.
 */
export function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const coded = codedFailure(error);
  if (coded !== undefined) return coded;
  const cause = error.cause;
  if (cause instanceof Error) return cause.message;
  return error.message;
}

// Codes of a connection that could not be made or broke: another attempt may succeed.
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

// How deep a chain of causes is followed (SDK error → fetch's TypeError → the socket's error).
const MAX_CAUSES = 8;

/**
 * The network failure behind `error`, when its chain of causes holds one: a
 * connection refused, reset or closed by the other side — also after the
 * response headers arrived, while its body was read — a name lookup that
 * failed, or undici's bare `fetch failed` / `terminated`. Described as
 * `UND_ERR_SOCKET (other side closed)`; undefined for anything else. Providers
 * make such failures retryable, whatever wrapped them (an SDK's HTTP 200
 * "failed to process successful response").
 */
export function networkFailure(error: unknown): string | undefined {
  return codedFailure(error) ?? bareFetchFailure(error);
}

/** The deepest error of the chain with a network code, as `CODE (message)`. */
function codedFailure(error: unknown): string | undefined {
  let found: string | undefined;
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSES && current instanceof Error; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || code.startsWith('UND_ERR_'))) {
      found = `${code} (${current.message})`;
    }
    current = current.cause;
  }
  return found;
}

/** undici's `TypeError: fetch failed` or `terminated` in the chain, when no cause says more. */
function bareFetchFailure(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSES && current instanceof Error; depth++) {
    if (
      current.name === 'TypeError' &&
      (current.message === 'fetch failed' || current.message === 'terminated')
    ) {
      return current.message;
    }
    current = current.cause;
  }
  return undefined;
}
