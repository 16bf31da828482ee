/** `${{ NAME }}` for `name` (a regex source; default any variable name, captured), spaces optional. */
export function placeholderPattern(name = '([A-Za-z_][A-Za-z0-9_]*)', flags = ''): RegExp {
  return new RegExp(`\\$\\{\\{\\s*${name}\\s*\\}\\}`, flags);
}

const ANY_PLACEHOLDER = placeholderPattern();

/**
 * Whether a setting still holds a `${{ VAR }}` placeholder: after loading, that
 * means its variable was unset. Core reports the variable; provider checks skip
 * such values.
 */
export function hasPlaceholder(value: unknown): boolean {
  return typeof value === 'string' && ANY_PLACEHOLDER.test(value);
}

/** Whether `text` uses `${{ name }}`. */
export function usesVariable(text: string, name: string): boolean {
  return placeholderPattern(name).test(text);
}
