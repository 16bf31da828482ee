const UNITS = [
  ['g', 1024 ** 3],
  ['m', 1024 ** 2],
  ['k', 1024],
] as const;

/** Bytes as Docker writes a memory limit: `512m`, `2g`, else the largest unit that divides it. */
export function formatMemory(bytes: number): string {
  for (const [unit, size] of UNITS) {
    if (bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return `${bytes}b`;
}
