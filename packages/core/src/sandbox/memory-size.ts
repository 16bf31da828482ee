const MEMORY = /^(\d+(?:\.\d+)?)([bkmg])$/;
const UNIT = { b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 } as const;

/** Docker's smallest memory limit; a smaller one is refused by the engine. */
export const MIN_MEMORY_BYTES = 6 * 1024 ** 2;

/**
 * Bytes of a memory limit written as Docker writes it: a number and one of
 * `b`, `k`, `m`, `g` (`512m`, `2g`, `1.5g`), any case; undefined for anything
 * else (a bare number too: `512` would be 512 bytes, never what was meant).
 */
export function parseMemorySize(text: string): number | undefined {
  const match = MEMORY.exec(text.trim().toLowerCase());
  if (match === null) return undefined;
  const bytes = Math.floor(Number(match[1]) * UNIT[match[2] as keyof typeof UNIT]);
  return Number.isFinite(bytes) && bytes > 0 ? bytes : undefined;
}
