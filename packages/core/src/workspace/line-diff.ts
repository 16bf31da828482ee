/** One line of a line diff: kept (` `), removed (`-`) or added (`+`). */
export interface DiffLine {
  op: ' ' | '-' | '+';
  text: string;
}

/**
 * Past this many differences between two files the diff stops looking for the
 * shortest edit and reports the rest as removed and added, so time and memory
 * stay bounded.
 */
const MAX_EDIT_DISTANCE = 2000;

/**
 * The lines of `before` and `after` as a shortest edit script (Myers), common
 * lines kept in order. Lines compare exactly, the end-of-line included.
 */
export function diffLines(before: readonly string[], after: readonly string[]): DiffLine[] {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore--;
    endAfter--;
  }
  const result: DiffLine[] = before.slice(0, start).map((text) => ({ op: ' ', text }));
  result.push(
    ...middle(before.slice(start, endBefore), after.slice(start, endAfter)),
    ...before.slice(endBefore).map((text): DiffLine => ({ op: ' ', text })),
  );
  return result;
}

function middle(a: readonly string[], b: readonly string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return replaced(a, b);
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  // Step d only reads diagonals -d-1 … d+1: keeping just those keeps memory at about d².
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number))
          ? (v[offset + k + 1] as number)
          : (v[offset + k - 1] as number) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, trace, d, k);
    }
  }
  return replaced(a, b);
}

function backtrack(
  a: readonly string[],
  b: readonly string[],
  trace: Int32Array[],
  distance: number,
  endK: number,
): DiffLine[] {
  const lines: DiffLine[] = [];
  let x = a.length;
  let y = b.length;
  let k = endK;
  for (let d = distance; d > 0; d--) {
    const v = trace[d] as Int32Array;
    // trace[d][i] is diagonal i - d - 1.
    const at = (diagonal: number) => v[diagonal + d + 1] as number;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const previousK = down ? k + 1 : k - 1;
    const previousX = at(previousK);
    const previousY = previousX - previousK;
    while (x > previousX + (down ? 0 : 1) && y > previousY + (down ? 1 : 0)) {
      lines.push({ op: ' ', text: a[--x] as string });
      y--;
    }
    if (down) lines.push({ op: '+', text: b[--y] as string });
    else lines.push({ op: '-', text: a[--x] as string });
    k = previousK;
  }
  while (x > 0 && y > 0) {
    lines.push({ op: ' ', text: a[--x] as string });
    y--;
  }
  return lines.reverse();
}

function replaced(a: readonly string[], b: readonly string[]): DiffLine[] {
  return [
    ...a.map((text): DiffLine => ({ op: '-', text })),
    ...b.map((text): DiffLine => ({ op: '+', text })),
  ];
}

/**
 * The hunks of a unified diff (`@@ -1,3 +1,4 @@` and its lines) for `lines`,
 * with `context` unchanged lines around each change, as `diff -u` prints them;
 * a last line marked with `NO_NEWLINE` is followed by `\ No newline at end of file`.
 */
export function unifiedHunks(lines: readonly DiffLine[], context = 3): string {
  const out: string[] = [];
  let index = 0;
  const beforeLine = new Int32Array(lines.length + 1);
  const afterLine = new Int32Array(lines.length + 1);
  for (let i = 0, o = 0, n = 0; i < lines.length; i++) {
    beforeLine[i] = o;
    afterLine[i] = n;
    const op = (lines[i] as DiffLine).op;
    if (op !== '+') o++;
    if (op !== '-') n++;
  }
  while (index < lines.length) {
    while (index < lines.length && (lines[index] as DiffLine).op === ' ') index++;
    if (index >= lines.length) break;
    const start = Math.max(0, index - context);
    let end = index;
    // A hunk runs on while the next change is within two contexts of the last one.
    for (;;) {
      while (end < lines.length && (lines[end] as DiffLine).op !== ' ') end++;
      let next = end;
      while (next < lines.length && (lines[next] as DiffLine).op === ' ') next++;
      if (next < lines.length && next - end <= 2 * context) {
        end = next;
        continue;
      }
      end = Math.min(lines.length, end + context);
      break;
    }
    let removed = 0;
    let added = 0;
    const body: string[] = [];
    for (let i = start; i < end; i++) {
      const line = lines[i] as DiffLine;
      if (line.op !== '+') removed++;
      if (line.op !== '-') added++;
      body.push(`${line.op}${withoutMarker(line.text)}`);
      if (line.text.endsWith(NO_NEWLINE)) body.push('\\ No newline at end of file');
    }
    out.push(
      `@@ -${range(beforeLine[start] as number, removed)} +${range(afterLine[start] as number, added)} @@`,
      ...body,
    );
    index = end;
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

/** Appended to a file's last line when it has no newline, so it differs from the same line with one. */
export const NO_NEWLINE = '\u0000no-newline';

/** The lines of `text`; the last one marked with `NO_NEWLINE` when the text does not end with `\n`. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  else lines[lines.length - 1] += NO_NEWLINE;
  return lines;
}

function withoutMarker(text: string): string {
  return text.endsWith(NO_NEWLINE) ? text.slice(0, -NO_NEWLINE.length) : text;
}

function range(before: number, count: number): string {
  const first = count === 0 ? before : before + 1;
  return count === 1 ? `${first}` : `${first},${count}`;
}
