import type { EvaluationResult } from '@agentv/core';
import { terminalText } from '@agentv/results';

/**
 * Prints one plain line per finished case: `[3/10] PASS  refund-001  1.000  (120 ms)`;
 * the case id and message are `terminalText`.
 */
export function createProgressLines(total: number, write: (line: string) => void) {
  let done = 0;
  const width = String(total).length;
  return {
    onResult(result: EvaluationResult): void {
      done++;
      const counter = `[${String(done).padStart(width)}/${total}]`;
      const status = result.error !== undefined ? 'ERROR' : result.passed ? 'PASS ' : 'FAIL ';
      const detail =
        result.error !== undefined
          ? oneLine(result.error)
          : `${result.score.toFixed(3)}${shownMiss(result)}`;
      write(
        `${counter} ${status} ${terminalText(result.evalId)}  ${detail}  (${result.durationMs} ms)`,
      );
    },
  };
}

/**
 * The first check a case missed, after its score: on a failed case, and on one that passed below
 * a full score (a threshold let it pass, or a grader passed below 1), so the line says what cost
 * it points.
 */
function shownMiss(result: EvaluationResult): string {
  const miss = result.misses[0];
  return miss && (!result.passed || result.score < 1) ? `  ${oneLine(miss)}` : '';
}

/** How progress lines name a case: by its id, and with its target when the run has several. */
export function caseLabeler(severalTargets: boolean): (evalId: string, target: string) => string {
  return severalTargets ? (evalId, target) => `${evalId} [${target}]` : (evalId) => evalId;
}

/** How much of a failed case's answer `--verbose` prints. */
const ANSWER_EXCERPT_CHARS = 300;

/**
 * The `--verbose` line after a failed case: `answer of <case>: "<answer>"`, quoted as JSON so
 * line breaks, quotes and an empty answer show, cut after ANSWER_EXCERPT_CHARS characters with
 * how many more the result file holds. Escaped for the terminal (`terminalText`).
 */
export function failedAnswerLine(label: string, answer: string): string {
  const cut = answer.length > ANSWER_EXCERPT_CHARS;
  // Never between the two halves of a character written as a surrogate pair (an emoji).
  const end =
    cut && isHighSurrogate(answer.charCodeAt(ANSWER_EXCERPT_CHARS - 1))
      ? ANSWER_EXCERPT_CHARS - 1
      : ANSWER_EXCERPT_CHARS;
  const shown = JSON.stringify(cut ? answer.slice(0, end) : answer);
  const rest = answer.length - end;
  const more = cut
    ? `… (${rest.toLocaleString('en-US')} more character${rest === 1 ? '' : 's'} in the result file)`
    : answer === ''
      ? ' (empty)'
      : '';
  return terminalText(`answer of ${label}: ${shown}${more}`);
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return terminalText(flat.length > max ? `${flat.slice(0, max - 1)}…` : flat);
}
