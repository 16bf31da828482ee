/** Replaces secret values in a text with `***`. */
export type Redactor = (text: string) => string;

/** Values shorter than this are not masked: masking `1` or `on` would garble every line. */
const MIN_SECRET_LENGTH = 4;
const MAX_EXCERPT = 200;

/**
 * A redactor for the target's secrets: its header values (tokens, API keys)
 * and the values its `${{ VAR }}` placeholders were replaced with. A header
 * value such as `Bearer abc…` is masked whole and by its last word, so the
 * token is masked wherever it is echoed.
 */
export function createRedactor(values: readonly string[]): Redactor {
  const secrets = new Set<string>();
  for (const value of values) {
    for (const candidate of [value, value.split(' ').at(-1) ?? '']) {
      if (candidate.length >= MIN_SECRET_LENGTH) secrets.add(candidate);
    }
  }
  // Longest first, so a secret that contains another is masked whole.
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  if (ordered.length === 0) return (text) => text;
  return (text) => ordered.reduce((masked, secret) => masked.replaceAll(secret, '***'), text);
}

/** `text` on one line, cut to 200 characters, for error messages. */
export function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_EXCERPT ? `${line.slice(0, MAX_EXCERPT - 3)}...` : line;
}
