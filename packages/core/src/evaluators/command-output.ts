import { parseJsonObject } from '../util/records.js';
import type { EvaluationScore } from './evaluator.js';
import { EvaluatorError } from './evaluator-error.js';
import { capJudgeItems } from './judge-items.js';
import { judgeOutputSchema } from './parse-judge-output.js';

/** Lines of each stream a `command` grader's reasoning keeps, at most. */
export const TAIL_LINES = 20;
/** Characters of each stream a `command` grader's reasoning keeps, at most. */
export const TAIL_CHARS = 2048;

/**
 * The score a command printed as the last non-empty line of its stdout:
 * a JSON object with a `score` (`{score, hits?, misses?, reasoning?}`, as a
 * code judge prints). Undefined when that line is anything else (a test
 * runner's summary, a JSON object without `score`). Throws `EvaluatorError`
 * naming `label` for an object with a `score` of the wrong shape. The score
 * is as printed (the grader run clamps it to 0–1 and warns).
 */
export function scoreLine(stdout: string, label: string): EvaluationScore | undefined {
  const last = lastLine(stdout);
  const value = last === undefined ? undefined : parseJsonObject(last);
  if (value === undefined || !('score' in value)) return undefined;
  const parsed = judgeOutputSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'line'}: ${issue.message}`)
      .join('; ');
    throw new EvaluatorError(
      `${label} ended its output with a score of the wrong shape (${problems}); the last line must be {"score": number, "hits"?: [...], "misses"?: [...], "reasoning"?: "..."} or not JSON with "score" at all`,
    );
  }
  const { score, hits, misses, reasoning } = parsed.data;
  return {
    score,
    hits: capJudgeItems(hits ?? []),
    misses: capJudgeItems(misses ?? []),
    ...(reasoning == null ? {} : { reasoning }),
  };
}

/**
 * `how` (`exited with code 1`) and the end of each non-empty stream: its last
 * 20 lines, at most 2 KiB, with how many lines were left out.
 */
export function outputTail(how: string, stdout: string, stderr: string): string {
  const parts = [how];
  for (const [name, text] of [
    ['stdout', stdout],
    ['stderr', stderr],
  ] as const) {
    const tail = tailOf(text);
    if (tail !== undefined)
      parts.push(`${name}${tail.cut ? ` (last ${tail.lines} lines)` : ''}:\n${tail.text}`);
  }
  if (parts.length === 1) parts.push('(it printed nothing)');
  return parts.join('\n');
}

function tailOf(text: string): { text: string; lines: number; cut: boolean } | undefined {
  const trimmed = text.replace(/\s+$/, '');
  if (trimmed === '') return undefined;
  const all = trimmed.split(/\r?\n/);
  let kept = all.slice(-TAIL_LINES);
  let joined = kept.join('\n');
  while (joined.length > TAIL_CHARS && kept.length > 1) {
    kept = kept.slice(1);
    joined = kept.join('\n');
  }
  if (joined.length > TAIL_CHARS) {
    // Not from the second half of a surrogate pair.
    joined = `…${joined.slice(joined.length - TAIL_CHARS + 1).replace(/^[\uDC00-\uDFFF]/, '')}`;
  }
  return { text: joined, lines: kept.length, cut: kept.length < all.length };
}

function lastLine(text: string): string | undefined {
  const lines = text.split(/\r?\n/);
  for (let index = lines.length - 1; index >= 0; index--) {
    if (lines[index]!.trim() !== '') return lines[index];
  }
  return undefined;
}
