import { shellQuote } from './shell-quote.js';

/** Replaces secret values in a text with `***`. */
export type Redactor = (text: string) => string;

/** Values shorter than this are not treated as secrets: masking `1` or `on` would garble every log line. */
export const MIN_SECRET_LENGTH = 4;

/**
 * Builds a redactor for the values of a target's `env` and for the values its
 * `${{ VAR }}` placeholders were replaced with, which may hold API keys. Each
 * value is masked as written and in its shell-quoted form.
 */
export function createRedactor(
  env: Record<string, string>,
  secretValues: readonly string[] = [],
): Redactor {
  const secrets = new Set<string>();
  for (const value of [...Object.values(env), ...secretValues]) {
    if (value.length < MIN_SECRET_LENGTH) continue;
    secrets.add(value);
    secrets.add(shellQuote(value).slice(1, -1));
  }
  // Longest first, so a secret that contains another is masked whole.
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  if (ordered.length === 0) return (text) => text;
  return (text) => ordered.reduce((masked, secret) => masked.replaceAll(secret, '***'), text);
}
