import type { EvaluationResult } from '@agentv/core';
import { describe, expect, it } from 'vitest';
import { createProgressLines, failedAnswerLine } from './progress-lines.js';

describe('createProgressLines', () => {
  it('names the first missed check of a failed case, and of one that passed below a full score', () => {
    const lines: string[] = [];
    const progress = createProgressLines(3, (line) => lines.push(line));
    const graded = (evalId: string, score: number, passed: boolean, misses: string[]) =>
      ({ evalId, score, passed, misses, durationMs: 5 }) as unknown as EvaluationResult;
    progress.onResult(graded('full', 1, true, []));
    // A tests: file's case passes at 0.8: the line says which check cost the rest.
    progress.onResult(graded('most', 0.8, true, ['missing "refund"', 'too long']));
    progress.onResult(graded('low', 0.4, false, ['missing "order"']));
    expect(lines).toEqual([
      '[1/3] PASS  full  1.000  (5 ms)',
      '[2/3] PASS  most  0.800  missing "refund"  (5 ms)',
      '[3/3] FAIL  low  0.400  missing "order"  (5 ms)',
    ]);
  });
});

describe('failedAnswerLine', () => {
  it('quotes the answer so an empty one, line breaks and quotes show', () => {
    expect(failedAnswerLine('refund-001', '')).toBe('answer of refund-001: "" (empty)');
    expect(failedAnswerLine('refund-001', 'a\n"b"\t')).toBe(
      'answer of refund-001: "a\\n\\"b\\"\\t"',
    );
  });

  it('keeps 300 characters and says how many more the result file holds', () => {
    expect(failedAnswerLine('c', 'x'.repeat(300))).toBe(`answer of c: "${'x'.repeat(300)}"`);
    expect(failedAnswerLine('c', 'x'.repeat(301))).toBe(
      `answer of c: "${'x'.repeat(300)}"… (1 more character in the result file)`,
    );
    expect(failedAnswerLine('c', 'y'.repeat(2300))).toBe(
      `answer of c: "${'y'.repeat(300)}"… (2,000 more characters in the result file)`,
    );
  });

  it('never cuts an emoji in half', () => {
    const line = failedAnswerLine('c', `${'x'.repeat(299)}🚀 and more`);
    expect(line).toBe(`answer of c: "${'x'.repeat(299)}"… (11 more characters in the result file)`);
  });

  it('escapes what JSON leaves raw and a terminal would act on, in the answer and the case id', () => {
    const line = failedAnswerLine('id\u001b[2J', 'fine\u009b31m\u202etxt');
    expect(line).not.toMatch(/[\u001b\u009b\u202e]/);
    expect(line).toContain('\\x1b[2J');
    expect(line).toContain('\\u202e');
  });
});
