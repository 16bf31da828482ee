/** What every secret is replaced with. */
export const SECRET_MASK = '***';

/** Values shorter than this are not treated as secrets: masking `1` or `on` would garble every line. */
export const MIN_SECRET_LENGTH = 4;

/** Masks a set of secret values wherever they occur. */
export interface SecretMask {
  /** `text` with every secret replaced by `***`. */
  text(text: string): string;
  /**
   * `value` with every secret masked in every string inside it (plain objects
   * and arrays are walked). Parts without a secret are returned as they are;
   * parts with one are copied, so the input is never changed.
   */
  deep<T>(value: T): T;
}

/**
 * A mask for `values` (API keys, tokens: what a target's `${{ VAR }}`
 * placeholders were replaced with). Values shorter than four characters are
 * left alone; a secret that contains another is masked whole. Returns
 * `undefined` when nothing is left to mask, so callers skip the work.
 */
export function createSecretMask(values: readonly string[]): SecretMask | undefined {
  const secrets = [...new Set(values.filter((value) => value.length >= MIN_SECRET_LENGTH))];
  if (secrets.length === 0) return undefined;
  secrets.sort((a, b) => b.length - a.length);
  const text = (input: string): string => {
    let masked = input;
    for (const secret of secrets) {
      if (masked.includes(secret)) masked = masked.replaceAll(secret, SECRET_MASK);
    }
    return masked;
  };
  const deep = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let index = 0; index < value.length; index++) {
        const item = value[index];
        const masked = deep(item);
        if (masked !== item) {
          copy ??= value.slice();
          copy[index] = masked;
        }
      }
      return copy ?? value;
    }
    if (value !== null && typeof value === 'object' && isPlainObject(value)) {
      let copy: Record<string, unknown> | undefined;
      for (const key in value) {
        const item = (value as Record<string, unknown>)[key];
        const masked = deep(item);
        if (masked !== item) {
          copy ??= { ...(value as Record<string, unknown>) };
          copy[key] = masked;
        }
      }
      return copy ?? value;
    }
    return value;
  };
  return { text, deep: deep as <T>(value: T) => T };
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
