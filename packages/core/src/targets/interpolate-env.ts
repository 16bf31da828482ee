import type { ResolvedTarget } from '../provider/resolved-target.js';
import { placeholderPattern } from '../util/env-placeholder.js';

const PLACEHOLDER = placeholderPattern(undefined, 'g');

/** A value with its `${{ NAME }}` placeholders replaced, the names that were unset, and the values put in. */
export interface Interpolated<T> {
  value: T;
  missing: string[];
  /** The values substituted for placeholders, each once; they may be secrets. */
  substituted: string[];
}

/**
 * Replaces `${{ NAME }}` (spaces inside the braces optional) in every string
 * inside `value`, recursively through lists and mappings (keys untouched).
 * Placeholders of unset variables are left as written and their names
 * returned in `missing` (sorted, no repeats). An empty string counts as set.
 */
export function interpolateEnv<T>(
  value: T,
  env: Record<string, string | undefined>,
): Interpolated<T> {
  const missing = new Set<string>();
  const substituted = new Set<string>();
  const visit = (node: unknown): unknown => {
    if (typeof node === 'string') {
      return node.replace(PLACEHOLDER, (placeholder, name: string) => {
        const replacement = env[name];
        if (replacement === undefined) {
          missing.add(name);
          return placeholder;
        }
        if (replacement !== '') substituted.add(replacement);
        return replacement;
      });
    }
    if (Array.isArray(node)) return node.map(visit);
    if (typeof node === 'object' && node !== null) {
      return Object.fromEntries(Object.entries(node).map(([key, entry]) => [key, visit(entry)]));
    }
    return node;
  };
  return { value: visit(value) as T, missing: [...missing].sort(), substituted: [...substituted] };
}

/**
 * The error text for a target whose `${{ VAR }}` placeholders are unset, e.g.
 * `target "x" needs environment variable(s) OPENAI_KEY, which are not set`;
 * empty when none are missing.
 */
export function describeMissingVariables(
  target: Pick<ResolvedTarget, 'name' | 'missingVariables'>,
): string {
  const names = target.missingVariables ?? [];
  if (names.length === 0) return '';
  return `target "${target.name}" needs environment variable(s) ${names.join(', ')}, which are not set`;
}
