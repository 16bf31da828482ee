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

/** A key written in camelCase that maps onto a key also written in snake_case. */
export interface KeyConflict {
  /** The key as written in the file (camelCase). */
  written: string;
  /** The snake_case key that wins. */
  key: string;
}

/**
 * Copies `record` with its own keys in snake_case (values untouched). When
 * both spellings of a key are present, the snake_case one wins and the
 * other is reported.
 */
export function snakeCaseKeys(record: Record<string, unknown>): {
  value: Record<string, unknown>;
  conflicts: KeyConflict[];
} {
  const value: Record<string, unknown> = {};
  const conflicts: KeyConflict[] = [];
  for (const [written, entry] of Object.entries(record)) {
    const key = toSnakeCase(written);
    if (key === written || !(key in record)) {
      value[key] = entry;
    } else {
      conflicts.push({ written, key });
    }
  }
  return { value, conflicts };
}
