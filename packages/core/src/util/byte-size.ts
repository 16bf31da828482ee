const UNITS = [
  { name: 'GiB', bytes: 1024 ** 3 },
  { name: 'MiB', bytes: 1024 ** 2 },
  { name: 'KiB', bytes: 1024 },
] as const;

/** What `parseByteSize` reads; character classes rather than a flag, so JSON Schema can carry it. */
export const BYTE_SIZE_PATTERN = /^\s*(\d+(?:\.\d+)?)\s*([Bb]|[KkMmGg][Ii][Bb])?\s*$/;

/**
 * A size as people write it: a whole number of bytes (`65536`), or a number
 * with a binary unit (`64KiB`, `16 MiB`, `1.5GiB`; the unit in any case).
 * Undefined for anything else, `16MB` included: whether that means 10⁶ or 2²⁰
 * bytes is ambiguous, so it is refused rather than guessed.
 */
export function parseByteSize(text: string): number | undefined {
  const match = BYTE_SIZE_PATTERN.exec(text);
  if (!match) return undefined;
  const unit = UNITS.find((candidate) => candidate.name.toLowerCase() === match[2]?.toLowerCase());
  const bytes = Number(match[1]) * (unit?.bytes ?? 1);
  return Number.isSafeInteger(Math.floor(bytes)) ? Math.floor(bytes) : undefined;
}

/**
 * `bytes` for messages: `900 B`, `64 KiB`, `1.3 MiB`, `16.0 MiB` (one decimal
 * below 100 units unless the value is whole, so a size just past a limit does
 * not read as the limit itself).
 */
export function formatBytes(bytes: number): string {
  for (const unit of UNITS) {
    if (bytes < unit.bytes) continue;
    const value = bytes / unit.bytes;
    const shown = Number.isInteger(value) || value >= 100 ? Math.round(value) : value.toFixed(1);
    return `${shown} ${unit.name}`;
  }
  return `${bytes} B`;
}
