import { isRecord } from '../util/records.js';

/**
 * Whether `actual` contains `expected`: objects match when every key of
 * `expected` is present in `actual` with a matching value (extra keys in
 * `actual` are fine), arrays match element by element and must have the same
 * length, and other values must be strictly equal.
 */
export function matchesSubset(expected: unknown, actual: unknown): boolean {
  if (isRecord(expected)) {
    if (!isRecord(actual)) return false;
    return Object.entries(expected).every(
      ([key, value]) => Object.hasOwn(actual, key) && matchesSubset(value, actual[key]),
    );
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return false;
    return expected.every((value, index) => matchesSubset(value, actual[index]));
  }
  return expected === actual;
}
