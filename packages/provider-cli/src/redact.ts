import { createSecretMask, shellQuote } from '@agentv/core/provider-utils';

/** Replaces secret values in a text with `***`. */
export type Redactor = (text: string) => string;

/**
 * Builds a redactor for the values of a target's `env` and for the values its
 * `${{ VAR }}` placeholders were replaced with, which may hold API keys. Each
 * value is masked as written and in its shell-quoted form (core's
 * `createSecretMask`: values under four characters are left alone).
 */
export function createRedactor(
  env: Record<string, string>,
  secretValues: readonly string[] = [],
): Redactor {
  const values = [...Object.values(env), ...secretValues];
  const mask = createSecretMask(values.flatMap((value) => [value, shellQuote(value).slice(1, -1)]));
  return mask ? mask.text : (text) => text;
}
