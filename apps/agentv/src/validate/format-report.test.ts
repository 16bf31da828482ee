import { describe, expect, it } from 'vitest';
import { formatReport, paletteFor } from './format-report.js';

const report = {
  files: ['/p/evals/a.yaml', '/p/.agentv/targets.yaml'],
  issues: [
    { severity: 'warning' as const, file: '/p/.agentv/targets.yaml', line: 4, message: 'w' },
    {
      severity: 'error' as const,
      file: '/p/evals/a.yaml',
      line: 9,
      column: 3,
      caseId: 'x',
      message: 'later',
    },
    { severity: 'error' as const, file: '/p/evals/a.yaml', line: 2, message: 'first', hint: 'h' },
  ],
  skipped: [],
};

describe('formatReport', () => {
  it('lists issues by file in checking order, then by line, then a summary', () => {
    expect(formatReport(report, '/p')).toEqual([
      'error: evals/a.yaml:2: first (hint: h)',
      'error: evals/a.yaml:9:3: case "x": later',
      'warning: .agentv/targets.yaml:4: w',
      '2 files checked: 1 with errors (2 errors, 1 warning)',
    ]);
  });

  it('summarises a clean run, with or without warnings', () => {
    expect(formatReport({ files: ['/p/a.yaml'], issues: [], skipped: [] }, '/p')).toEqual([
      '1 file checked: no errors',
    ]);
    expect(
      formatReport({ files: ['/p/a.yaml'], issues: [report.issues[0]!], skipped: [] }, '/p').at(-1),
    ).toBe('1 file checked: no errors (1 warning)');
  });

  it('colours only a terminal, and never with NO_COLOR', () => {
    const colored = formatReport(report, '/p', paletteFor({ isTTY: true }, {}));
    expect(colored[0]).toBe(
      '\u001b[1;31merror\u001b[0m: \u001b[1mevals/a.yaml:2:\u001b[0m first (hint: h)',
    );
    expect(formatReport(report, '/p', paletteFor({ isTTY: false }, {}))[0]).not.toContain('\u001b');
    expect(
      formatReport(report, '/p', paletteFor({ isTTY: true }, { NO_COLOR: '1' }))[0],
    ).not.toContain('\u001b');
  });

  it('names the first five YAML files of other tools it skipped, each escaped', () => {
    const skipped = [
      '/p/ci/a.yml',
      '/p/x\n\u001b[2Jy.yml',
      '/p/c.yml',
      '/p/d.yml',
      '/p/e.yml',
      '/p/f.yml',
    ];
    expect(formatReport({ files: ['/p/a.yaml'], issues: [], skipped }, '/p')).toEqual([
      "skipped 6 YAML files that are not AgentV's (no top-level key of an eval file): ci/a.yml, x\\n\\x1b[2Jy.yml, c.yml, d.yml, e.yml and 1 more",
      '1 file checked: no errors',
    ]);
  });
});
