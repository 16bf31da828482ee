import { createSecretMask } from '@agentv/core/provider-utils';

/** Replaces secret values in a text with `***`. */
export type Redactor = (text: string) => string;

const MAX_EXCERPT = 200;

/**
 * A redactor for the target's secrets: its header values (tokens, API keys)
 * and the values its `${{ VAR }}` placeholders were replaced with. A header
 * value such as `Bearer abc…` is masked whole and by its last word, so the
 * token is masked wherever it is echoed.
 */
export function createRedactor(values: readonly string[]): Redactor {
  const mask = createSecretMask(values.flatMap((value) => [value, value.split(' ').at(-1) ?? '']));
  return mask ? mask.text : (text) => text;
}

/** `text` on one line, cut to 200 characters, for error messages. */
export function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_EXCERPT ? `${line.slice(0, MAX_EXCERPT - 3)}...` : line;
}
