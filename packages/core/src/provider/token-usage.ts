import { toCamelCase, toSnakeCase } from '../util/case-keys.js';
import { isRecord } from '../util/records.js';
import type { TokenUsage } from './provider-response.js';

/**
 * Token counts as agents and result files write them (`{ input_tokens: 12 }`,
 * camelCase accepted too) → `TokenUsage`. Non-numeric counts are dropped;
 * undefined when `value` is not a mapping or holds no count.
 */
export function parseTokenUsage(value: unknown): TokenUsage | undefined {
  if (!isRecord(value)) return undefined;
  const usage: TokenUsage = {};
  for (const [key, count] of Object.entries(value)) {
    if (typeof count === 'number' && Number.isFinite(count)) usage[toCamelCase(key)] = count;
  }
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/** `TokenUsage` as written in result files: snake_case keys (`input_tokens`), unset counts left out. */
export function tokenUsageRecord(usage: TokenUsage): Record<string, number> {
  const record: Record<string, number> = {};
  for (const [key, count] of Object.entries(usage)) {
    if (count !== undefined) record[toSnakeCase(key)] = count;
  }
  return record;
}

/** `a` and `b` added count by count; undefined when both are. */
export function addTokenUsage(
  a: TokenUsage | undefined,
  b: TokenUsage | undefined,
): TokenUsage | undefined {
  if (a === undefined) return b === undefined ? undefined : { ...b };
  if (b === undefined) return a;
  const sum: TokenUsage = { ...a };
  for (const [key, count] of Object.entries(b)) {
    if (count !== undefined) sum[key] = (sum[key] ?? 0) + count;
  }
  return sum;
}
