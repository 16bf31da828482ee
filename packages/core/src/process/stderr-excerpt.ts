/** How much of the end of stderr errors and results keep. */
export const STDERR_EXCERPT_CHARS = 2048;

/**
 * The last `limit` characters of `stderr`, trimmed; prefixed with `…` when
 * cut. The end is kept because that is where errors are printed.
 */
export function stderrExcerpt(stderr: string, limit = STDERR_EXCERPT_CHARS): string {
  const trimmed = stderr.trim();
  if (trimmed.length <= limit) return trimmed;
  let tail = trimmed.slice(-limit);
  // Do not start on the second half of a surrogate pair (emoji and the like).
  if (/^[\uDC00-\uDFFF]/.test(tail)) tail = tail.slice(1);
  return `…${tail.trimStart()}`;
}
