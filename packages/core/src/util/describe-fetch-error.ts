/**
 * The reason a `fetch` failed, from the error's cause when it has one:
 * `ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:9)` rather than `fetch failed`.
 */
export function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return code ? `${code} (${cause.message})` : cause.message;
  }
  return error.message;
}
