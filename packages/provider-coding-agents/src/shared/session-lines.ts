import { AgentvError } from '@agentv/core';

/** One JSON object line of a session file, with its 1-based line number and its own time. */
export interface SessionLine {
  value: Record<string, unknown>;
  line: number;
  /** The line's `timestamp`, when it has a valid one. */
  at?: Date;
}

/**
 * The JSON object lines of a session file (JSONL). A line that is not a JSON object is skipped
 * with a warning naming `shown:line`; a file where no line is one is an error.
 */
export function sessionLines(
  text: string,
  shown: string,
  format: string,
): { lines: SessionLine[]; warnings: string[] } {
  const lines: SessionLine[] = [];
  const bad: number[] = [];
  let number = 0;
  for (const raw of text.split('\n')) {
    number++;
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      bad.push(number);
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      bad.push(number);
      continue;
    }
    const record = value as Record<string, unknown>;
    const line: SessionLine = { value: record, line: number };
    const at = timeOf(record.timestamp);
    if (at !== undefined) line.at = at;
    lines.push(line);
  }
  if (lines.length === 0) {
    throw new AgentvError(
      bad.length === 0
        ? `${shown} is empty: no ${format} lines to read`
        : `${shown}:${bad[0]} is not JSON: ${shown} is not a ${format} (one JSON object per line)`,
      { hint: `point trace.path at a ${format} file` },
    );
  }
  const warnings =
    bad.length === 0
      ? []
      : [
          `${shown}:${bad[0]} is not a JSON object line${bad.length > 1 ? ` (nor ${bad.length - 1} more: ${bad.slice(1, 4).join(', ')}${bad.length > 4 ? ', …' : ''})` : ''}; skipped`,
        ];
  return { lines, warnings };
}

function timeOf(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? undefined : time;
}

/** Milliseconds from the first to the last timed line; undefined with fewer than two. */
export function sessionDuration(lines: readonly SessionLine[]): number | undefined {
  let first: number | undefined;
  let last: number | undefined;
  for (const { at } of lines) {
    if (at === undefined) continue;
    const ms = at.getTime();
    if (first === undefined || ms < first) first = ms;
    if (last === undefined || ms > last) last = ms;
  }
  return first === undefined || last === undefined ? undefined : last - first;
}
