import { computeRunStatistics } from '@agentv/core';
import { describe, expect, it } from 'vitest';
import { formatSummary } from './format-summary.js';
import { errored, scored } from './test-support/make-result.js';

const results = [
  scored('refund-001', 1),
  scored('refund-002', 0.9),
  scored('refund-003', 0.4, {
    misses: ['Answer does not contain "refund amount"', 'second miss'],
  }),
  errored(
    'refund-004',
    'evaluator "judge" (code_judge) failed: script crashed\nTraceback (most recent call last):',
  ),
  scored('refund-005', 0.85),
];

describe('formatSummary', () => {
  it('prints counts, statistics, histogram and lowest cases as plain text', () => {
    const text = formatSummary(computeRunStatistics(results, { lowestCount: 3 }));
    expect(text).toBe(
      [
        '5 cases: 3 passed, 1 failed, 1 errored',
        'Failures by class: agent 2',
        'Scores (4 graded, 1 errored excluded): mean 0.787  median 0.875  min 0.400  max 1.000  std 0.230',
        '',
        'Score distribution:',
        `  [0.0, 0.2)  ${' '.repeat(30)}  0`,
        `  [0.2, 0.4)  ${' '.repeat(30)}  0`,
        `  [0.4, 0.6)  ${'#'.repeat(10).padEnd(30)}  1`,
        `  [0.6, 0.8)  ${' '.repeat(30)}  0`,
        `  [0.8, 1.0]  ${'#'.repeat(30)}  3`,
        '',
        'Lowest-scoring cases:',
        '  ERROR  refund-004 (default): evaluator "judge" (code_judge) failed: script crashed',
        '  FAIL   refund-003 (default) 0.400: Answer does not contain "refund amount"',
      ].join('\n'),
    );
  });

  it('has no ANSI codes without color, and uses them with color', () => {
    const stats = computeRunStatistics(results);
    const ansi = /\u001b\[/;
    expect(formatSummary(stats)).not.toMatch(ansi);
    expect(formatSummary(stats, { color: false })).not.toMatch(ansi);
    const colored = formatSummary(stats, { color: true });
    expect(colored).toMatch(ansi);
    expect(colored).toContain('\u001b[32m3 passed\u001b[39m');
  });

  it('shortens a long error to one line', () => {
    const text = formatSummary(computeRunStatistics([errored('x', `${'e'.repeat(300)}\nmore`)]));
    expect(text).toContain(`  ERROR  x (default): ${'e'.repeat(117)}...`);
    expect(text).toContain('Scores: none (every case errored)');
    expect(text).not.toContain('more');
  });

  it('escapes control characters of case ids, target names and messages', () => {
    const hostile = '\u001b[2J\rPASS  fake\nline\u202e';
    const text = formatSummary(
      computeRunStatistics([
        scored(hostile, 0.1, { target: `t\u001b[31m`, misses: ['miss\u001b[1A'] }),
        errored(`e\r${hostile}`, 'boom\u001b]0;title\u0007'),
      ]),
    );
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u202e]/);
    expect(text).toContain(
      '  FAIL   \\x1b[2J\\rPASS  fake\\nline\\u202e (t\\x1b[31m) 0.100: miss\\x1b[1A',
    );
    expect(text).toContain('boom\\x1b]0;title\\x07');
  });

  it('sums tokens and cost over the run when results report them', () => {
    const text = formatSummary(
      computeRunStatistics([
        scored('a', 1, {
          usage: { inputTokens: 1200, outputTokens: 300, cachedTokens: 200 },
          costUsd: 0.0105,
        }),
        scored('b', 1, { usage: { inputTokens: 800, outputTokens: 100 }, cached: true }),
        scored('c', 1),
      ]),
    );
    expect(text.split('\n')[1]).toBe(
      'Tokens: 2,000 in (200 cached), 400 out  Cost: ~$0.0105  Cache: 1 of 3 answers',
    );
  });

  it('prints no usage line when no result reports usage, cost or a cache hit', () => {
    expect(formatSummary(computeRunStatistics(results))).not.toMatch(/Tokens:|Cost:|Cache:/);
  });

  it('says so when there were no cases', () => {
    expect(formatSummary(computeRunStatistics([]))).toBe('0 cases: 0 passed, 0 failed, 0 errored');
  });
});

describe('formatSummary with several targets', () => {
  it('shows the targets side by side in an aligned table', () => {
    const text = formatSummary(
      computeRunStatistics([
        scored('a', 1, {
          target: 'good',
          durationMs: 1500,
          usage: { inputTokens: 1200, outputTokens: 30 },
        }),
        scored('b', 0.9, { target: 'good', durationMs: 500, costUsd: 0.01 }),
        scored('a', 0.2, { target: 'bad-long-name', durationMs: 200 }),
        { ...errored('b', 'timed out'), target: 'bad-long-name', durationMs: 100 },
      ]),
    );
    const table = text.slice(text.indexOf('Targets:')).split('\n').slice(1, 4);
    expect(table).toEqual([
      '  target         cases  passed  failed  errored  pass rate   mean  tokens in  tokens out     cost  duration',
      '  bad-long-name      2       0       1        1       0.0%  0.200          -           -        -      0.3s',
      '  good               2       2       0        0     100.0%  0.950      1,200          30  $0.0100      2.0s',
    ]);
  });

  it('shows no table for a run with one target', () => {
    expect(formatSummary(computeRunStatistics(results))).not.toContain('Targets:');
  });
});
