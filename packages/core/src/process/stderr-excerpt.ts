/** How much of stderr errors and results keep. */
export const STDERR_EXCERPT_CHARS = 2048;

/**
 * `stderr` trimmed, whole when it fits in `limit` characters; otherwise its
 * first and last lines (about half of `limit` each) with a marker line for
 * what was cut (`… 37 lines cut …`). Both ends are kept because Node prints
 * the error near the top of a crash and Python at the bottom. A line too long
 * to keep whole is cut inside (`… 2952 characters cut …`).
 */
export function stderrExcerpt(stderr: string, limit = STDERR_EXCERPT_CHARS): string {
  const trimmed = stderr.trim();
  if (trimmed.length <= limit) return trimmed;
  const lines = trimmed.split(/\r?\n/);
  // Room for the marker line.
  const budget = Math.max(limit - 32, 2);
  const headBudget = Math.ceil(budget / 2);
  const head: string[] = [];
  let used = 0;
  for (const line of lines) {
    if (used + line.length + 1 > headBudget) break;
    head.push(line);
    used += line.length + 1;
  }
  const tail: string[] = [];
  used = 0;
  for (let index = lines.length - 1; index >= head.length; index--) {
    const line = lines[index] as string;
    if (used + line.length + 1 > budget - headBudget) break;
    tail.unshift(line);
    used += line.length + 1;
  }
  if (head.length > 0 && tail.length > 0) {
    const cut = lines.length - head.length - tail.length;
    return [...head, `… ${cut} ${cut === 1 ? 'line' : 'lines'} cut …`, ...tail].join('\n');
  }
  // A line longer than half the budget: cut characters instead of lines.
  const start = safeEnd(trimmed.slice(0, headBudget));
  const end = safeStart(trimmed.slice(trimmed.length - (budget - headBudget)));
  const cut = trimmed.length - start.length - end.length;
  return `${start.trimEnd()}\n… ${cut} characters cut …\n${end.trimStart()}`;
}

/**
 * The line of `stderr` that says what went wrong, when one can be found:
 * Python's last `XxxError: …` line after a traceback, otherwise the first line
 * that starts like an error (`Error: …`, `TypeError [CODE]: …`, `error: …`,
 * `panic: …`, `fatal: …`) or is a shell's own error (`sh: 1: foo: not found`,
 * `./run.sh: line 3: foo: command not found`).
 */
export function stderrErrorLine(stderr: string): string | undefined {
  const lines = stderr
    .trim()
    .split(/\r?\n/)
    .map((line) => line.trim());
  if (lines.some((line) => line.startsWith('Traceback (most recent call last)'))) {
    const last = lines.findLast((line) => PYTHON_ERROR.test(line));
    if (last !== undefined) return last;
  }
  return lines.find((line) => ERROR_LINE.test(line));
}

const PYTHON_ERROR = /^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b:?/;
const ERROR_LINE =
  /^(?:Uncaught )?(?:[A-Z]\w*(?:Error|Exception)(?: \[[\w-]+\])?:|(?:error|fatal|panic)(?:\[\w+\])?:)|^[^\s:]+: (?:line )?\d+: \S/i;

// Do not end on the first half, or start on the second half, of a surrogate pair.
function safeEnd(text: string): string {
  return /[\uD800-\uDBFF]$/.test(text) ? text.slice(0, -1) : text;
}

function safeStart(text: string): string {
  return /^[\uDC00-\uDFFF]/.test(text) ? text.slice(1) : text;
}

/**
 * stderr on one line for an error message: the line that says what went wrong
 * first (when one is found), then the excerpt's lines joined with ` | `;
 * `''` when stderr is empty.
 */
export function stderrSummary(stderr: string, limit = STDERR_EXCERPT_CHARS): string {
  const excerpt = stderrExcerpt(stderr, limit).split(/\r?\n/).join(' | ');
  if (excerpt === '') return '';
  const errorLine = stderrErrorLine(stderr);
  if (errorLine === undefined || excerpt === errorLine) return `stderr: ${excerpt}`;
  return `${errorLine}; stderr: ${excerpt}`;
}
