import type { Issue } from '../errors/input-issue.js';

/** `batchSize` → `batch_size`, `baseURL` → `base_url`; snake_case keys are unchanged. */
export function toSnakeCase(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** `input_tokens` → `inputTokens`; camelCase keys are unchanged. */
export function toCamelCase(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

/**
 * Copies a mapping of settings with its own keys in snake_case (values
 * untouched; camelCase is accepted as AgentV 1.x wrote it). When both
 * spellings of a key are present, the snake_case one wins and a warning is
 * returned, its `path` being `path` (where the mapping is) plus the key as written.
 */
export function snakeCaseSettings(
  record: Record<string, unknown>,
  path: readonly (string | number)[] = [],
): { value: Record<string, unknown>; issues: Issue[] } {
  const value: Record<string, unknown> = {};
  const issues: Issue[] = [];
  for (const [written, entry] of Object.entries(record)) {
    const key = toSnakeCase(written);
    if (key === written || !(key in record)) {
      value[key] = entry;
    } else {
      issues.push({
        severity: 'warning',
        path: [...path, written],
        message: `"${written}" and "${key}" are the same setting; "${written}" is ignored`,
        hint: `keep only \`${key}\``,
      });
    }
  }
  return { value, issues };
}
