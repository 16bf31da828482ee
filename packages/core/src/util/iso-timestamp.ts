let lastMs = Number.NaN;
let lastText = '';

/**
 * `new Date().toISOString()`, made once per millisecond: a batch stamps thousands of
 * results within a few milliseconds, and each would otherwise allocate a `Date` and a string.
 */
export function isoTimestamp(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastText = new Date(now).toISOString();
  }
  return lastText;
}
