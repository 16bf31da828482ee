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
          : `${result.score.toFixed(3)}${!result.passed && result.misses[0] ? `  ${oneLine(result.misses[0])}` : ''}`;
      write(
        `${counter} ${status} ${terminalText(result.evalId)}  ${detail}  (${result.durationMs} ms)`,
      );
    },
  };
}

function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return terminalText(flat.length > max ? `${flat.slice(0, max - 1)}…` : flat);
}
