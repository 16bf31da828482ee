import type { ReadResultLine, ResultRecord } from '@agentv/results';
import { compareRuns } from '@agentv/results';
import { describe, expect, it } from 'vitest';
import { formatComparison } from './format-comparison.js';
import { selectSides } from './select-sides.js';

const record = (id: string, score: number, target = 'agent', evalFile = 'evals/a.yaml') =>
  ({
    timestamp: 't',
    eval_id: id,
    dataset: 'a',
    target,
    score,
    passed: score >= 0.5,
    hits: [],
    misses: [],
    reasoning: '',
    candidate_answer: '',
    evaluator_results: [],
    attempts: 1,
    duration_ms: 1,
    trace_summary: null,
    eval_file: evalFile,
  }) satisfies ResultRecord;

const lines = (records: ResultRecord[]): ReadResultLine[] =>
  records.map((r, index) => ({ record: r, line: index + 1 }));

describe('formatComparison markdown', () => {
  it('shows ten regressions and collapses the rest, and collapses long score-change lists', () => {
    const ids = Array.from({ length: 14 }, (_, i) => `case|${i}`);
    const base = selectSides(
      [
        { file: 'base.jsonl', lines: lines(ids.map((id) => record(id, 1))) },
        {
          file: 'new.jsonl',
          lines: lines(ids.map((id, i) => record(id, i < 12 ? 0 : 0.9))),
        },
      ],
      undefined,
      undefined,
    );
    const comparison = compareRuns(base.base.results, base.next.results, { resamples: 50 });
    const text = formatComparison({ comparison, base: base.base, next: base.next }, 'markdown');
    expect(text).toContain('#### Regressions (12)');
    expect(text).toContain('<summary>2 more regressions</summary>');
    // Pipes in case ids do not break the table.
    expect(text).toContain('`case\\|0`');
    expect(text).toContain('Score changes (2)');
  });
});

describe('selectSides', () => {
  it('refuses a case recorded twice on one side, naming both lines', () => {
    expect(() =>
      selectSides(
        [
          { file: 'base.jsonl', lines: lines([record('x', 1), record('x', 0)]) },
          { file: 'new.jsonl', lines: lines([record('x', 1)]) },
        ],
        undefined,
        undefined,
      ),
    ).toThrow('base.jsonl:2 holds case "x" (eval file evals/a.yaml) again, after line 1');
  });

  it('matches per target when both files hold the same targets, and asks to pick otherwise', () => {
    const both = lines([record('x', 1, 'a'), record('x', 0, 'b')]);
    const same = selectSides(
      [
        { file: 'one.jsonl', lines: both },
        { file: 'two.jsonl', lines: both },
      ],
      undefined,
      undefined,
    );
    expect(same.matchTarget).toBe(true);
    expect(() =>
      selectSides(
        [
          { file: 'one.jsonl', lines: both },
          { file: 'two.jsonl', lines: lines([record('x', 1, 'c')]) },
        ],
        undefined,
        undefined,
      ),
    ).toThrow('one.jsonl holds target(s) a, b and two.jsonl holds c');
    const picked = selectSides(
      [
        { file: 'one.jsonl', lines: both },
        { file: 'two.jsonl', lines: lines([record('x', 1, 'c')]) },
      ],
      'b',
      undefined,
    );
    expect(picked.matchTarget).toBe(false);
    expect(picked.base.results).toHaveLength(1);
  });
});
