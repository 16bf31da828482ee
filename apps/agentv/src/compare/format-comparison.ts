import {
  type CaseComparison,
  type RunComparison,
  terminalText,
  type UnmatchedCase,
} from '@agentv/results';
import type { ComparedSide } from './select-sides.js';

export type ComparisonFormat = 'table' | 'json' | 'markdown';

export interface ComparisonView {
  comparison: RunComparison;
  base: ComparedSide;
  next: ComparedSide;
}

/** Rows a markdown section shows before the rest go into a collapsed block. */
const MARKDOWN_ROWS = 10;

/** The comparison in one of the `--format` outputs, ending with a newline. */
export function formatComparison(view: ComparisonView, format: ComparisonFormat): string {
  if (format === 'json') return `${JSON.stringify(comparisonJson(view), null, 2)}\n`;
  if (format === 'markdown') return formatMarkdown(view);
  return formatTable(view);
}

/** Cases worth a row: the score or the verdict changed. */
function changedCases(comparison: RunComparison): CaseComparison[] {
  return comparison.cases.filter(
    (c) => c.outcome !== 'tie' || c.change === 'regressed' || c.change === 'fixed',
  );
}

function label(side: ComparedSide): string {
  return terminalText(side.target === undefined ? side.file : `${side.file} (${side.target})`);
}

/** `1 case`, `2 cases`: a count with its noun in the right number. */
function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

function tally(c: RunComparison): string {
  return `${count(c.wins, 'win')}, ${count(c.losses, 'loss', 'losses')}, ${count(c.ties, 'tie')}`;
}

function percent(rate: number): string {
  return `${(rate * 100).toFixed(1)}%`;
}

function points(delta: number): string {
  const value = delta * 100;
  return `${value >= 0 ? '+' : ''}${value.toFixed(1)}`;
}

function signed(value: number, digits = 3): string {
  return `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;
}

function pValue(p: number): string {
  return p < 0.001 ? p.toExponential(1) : p.toFixed(3);
}

function mcnemarLine({ mcnemar }: RunComparison): string {
  const method =
    mcnemar.method === 'exact'
      ? 'exact binomial'
      : `chi-square ${mcnemar.statistic!.toFixed(2)}, continuity-corrected`;
  return `McNemar (${method}, b=${mcnemar.b} c=${mcnemar.c}): p = ${pValue(mcnemar.pValue)}`;
}

function changeName(c: CaseComparison): string {
  if (c.change === 'regressed') return 'REGRESSED';
  if (c.change === 'fixed') return 'fixed';
  return c.outcome;
}

function scoreText(score: number, error: string | undefined): string {
  return error === undefined ? score.toFixed(3) : `${score.toFixed(3)} (error)`;
}

function formatTable({ comparison: c, base, next }: ComparisonView): string {
  const lines = [
    `agentv compare: ${label(base)} -> ${label(next)}`,
    `${count(c.cases.length, 'case')} in both: ${tally(c)}; ${c.regressions} regressed (passed -> failed), ${c.fixes} fixed`,
    `pass rate   ${percent(c.passRate.base)} -> ${percent(c.passRate.new)}  ${points(c.passRate.delta)} pp  (95% CI ${points(c.passRate.ci95[0])} to ${points(c.passRate.ci95[1])} pp)`,
    `mean score  ${c.meanScore.base.toFixed(3)} -> ${c.meanScore.new.toFixed(3)}  ${signed(c.meanScore.delta)}  (95% CI ${signed(c.meanScore.ci95[0])} to ${signed(c.meanScore.ci95[1])})`,
    mcnemarLine(c),
    `bootstrap: ${count(c.bootstrap.resamples, 'paired resample')}, seed ${c.bootstrap.seed}`,
  ];
  const rows = changedCases(c);
  if (rows.length > 0) {
    lines.push('', 'Changed cases (regressions first, then the largest score drops):');
    const table = [
      ['change', 'case', 'eval file', 'base', 'new', 'delta'],
      ...rows.map((row) => [
        changeName(row),
        terminalText(row.evalId),
        terminalText(row.evalFile),
        scoreText(row.baseScore, row.baseError),
        scoreText(row.newScore, row.newError),
        signed(row.delta),
      ]),
    ];
    const widths = table[0]!.map((_, column) =>
      Math.max(...table.map((cells) => cells[column]!.length)),
    );
    for (const cells of table) {
      lines.push(`  ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')}`.trimEnd());
    }
  }
  const unchanged = c.cases.length - rows.length;
  if (unchanged > 0) {
    lines.push(
      `${count(unchanged, 'case')} with the same score and verdict ${unchanged === 1 ? 'is' : 'are'} not listed`,
    );
  }
  for (const [name, list] of [
    ['only in base', c.onlyInBase],
    ['only in new', c.onlyInNew],
  ] as const) {
    if (list.length === 0) continue;
    lines.push('', `${name} (${list.length}):`);
    for (const one of list) lines.push(`  ${unmatchedText(one)}`);
  }
  return `${lines.join('\n')}\n`;
}

function unmatchedText(one: UnmatchedCase): string {
  return terminalText(`${one.evalId}  ${one.evalFile}  ${one.target}`);
}

function cell(text: string): string {
  return terminalText(text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' '));
}

function code(text: string): string {
  return `\`${cell(text).replace(/`/g, "'")}\``;
}

function markdownRows(rows: readonly CaseComparison[]): string[] {
  return [
    '| case | eval file | base | new | Δ |',
    '| --- | --- | ---: | ---: | ---: |',
    ...rows.map(
      (row) =>
        `| ${code(row.evalId)} | ${code(row.evalFile)} | ${scoreText(row.baseScore, row.baseError)}${row.basePassed ? ' ✅' : ' ❌'} | ${scoreText(row.newScore, row.newError)}${row.newPassed ? ' ✅' : ' ❌'} | ${signed(row.delta)} |`,
    ),
  ];
}

/** A titled table: the first rows shown, the rest collapsed; `noun` is one row (`regression`). */
function markdownSection(
  title: string,
  noun: string,
  rows: readonly CaseComparison[],
  open: boolean,
): string[] {
  if (rows.length === 0) return [];
  if (open && rows.length <= MARKDOWN_ROWS) {
    return [`#### ${title} (${rows.length})`, '', ...markdownRows(rows), ''];
  }
  const shown = open ? rows.slice(0, MARKDOWN_ROWS) : [];
  const rest = rows.slice(shown.length);
  return [
    ...(open ? [`#### ${title} (${rows.length})`, '', ...markdownRows(shown), ''] : []),
    '<details>',
    `<summary>${open ? `${rest.length} more ${rest.length === 1 ? noun : title.toLowerCase()}` : `${title} (${rows.length})`}</summary>`,
    '',
    ...markdownRows(rest),
    '',
    '</details>',
    '',
  ];
}

function formatMarkdown({ comparison: c, base, next }: ComparisonView): string {
  const regressed = c.cases.filter((row) => row.change === 'regressed');
  const others = changedCases(c).filter((row) => row.change !== 'regressed');
  const verdict = c.regressions > 0 ? `❌ ${c.regressions} regressed` : '✅ no regressions';
  const lines = [
    `### AgentV compare: ${code(label(base))} → ${code(label(next))}`,
    '',
    `**Pass rate ${percent(c.passRate.base)} → ${percent(c.passRate.new)} (${points(c.passRate.delta)} pp, 95% CI ${points(c.passRate.ci95[0])} to ${points(c.passRate.ci95[1])})** · ${verdict} · ${c.fixes} fixed · McNemar p = ${pValue(c.mcnemar.pValue)}`,
    '',
    '| | base | new | change |',
    '| --- | ---: | ---: | ---: |',
    `| pass rate | ${percent(c.passRate.base)} | ${percent(c.passRate.new)} | ${points(c.passRate.delta)} pp (95% CI ${points(c.passRate.ci95[0])} to ${points(c.passRate.ci95[1])}) |`,
    `| mean score | ${c.meanScore.base.toFixed(3)} | ${c.meanScore.new.toFixed(3)} | ${signed(c.meanScore.delta)} (95% CI ${signed(c.meanScore.ci95[0])} to ${signed(c.meanScore.ci95[1])}) |`,
    `| cases | ${c.cases.length + c.onlyInBase.length} | ${c.cases.length + c.onlyInNew.length} | ${tally(c)} |`,
    '',
    ...markdownSection('Regressions', 'regression', regressed, true),
    ...markdownSection('Score changes', 'score change', others, others.length <= MARKDOWN_ROWS),
  ];
  for (const [name, list] of [
    ['Only in base', c.onlyInBase],
    ['Only in new', c.onlyInNew],
  ] as const) {
    if (list.length === 0) continue;
    lines.push(
      '<details>',
      `<summary>${name} (${list.length})</summary>`,
      '',
      ...list.map((one) => `- ${code(one.evalId)} in ${code(one.evalFile)} (${cell(one.target)})`),
      '',
      '</details>',
      '',
    );
  }
  lines.push(
    `<sub>${mcnemarLine(c)}; 95% CIs from ${count(c.bootstrap.resamples, 'paired bootstrap resample')}, seed ${c.bootstrap.seed}.</sub>`,
  );
  return `${lines.join('\n')}\n`;
}

/** The `--format json` document: snake_case keys, like result files. */
export function comparisonJson({ comparison: c, base, next }: ComparisonView): object {
  const sideJson = (s: ComparedSide) => ({
    file: s.file,
    ...(s.target === undefined ? {} : { target: s.target }),
  });
  const change = (p: RunComparison['passRate']) => ({
    base: p.base,
    new: p.new,
    delta: p.delta,
    ci95: p.ci95,
  });
  const unmatched = (u: UnmatchedCase) => ({
    eval_file: u.evalFile,
    eval_id: u.evalId,
    target: u.target,
  });
  return {
    base: sideJson(base),
    new: sideJson(next),
    summary: {
      cases: c.cases.length,
      wins: c.wins,
      losses: c.losses,
      ties: c.ties,
      regressions: c.regressions,
      fixes: c.fixes,
      only_in_base: c.onlyInBase.length,
      only_in_new: c.onlyInNew.length,
    },
    pass_rate: change(c.passRate),
    mean_score: change(c.meanScore),
    mcnemar: {
      b: c.mcnemar.b,
      c: c.mcnemar.c,
      method: c.mcnemar.method,
      ...(c.mcnemar.statistic === undefined ? {} : { statistic: c.mcnemar.statistic }),
      p_value: c.mcnemar.pValue,
    },
    bootstrap: c.bootstrap,
    cases: c.cases.map((row) => ({
      eval_file: row.evalFile,
      eval_id: row.evalId,
      base_target: row.baseTarget,
      new_target: row.newTarget,
      base_score: row.baseScore,
      new_score: row.newScore,
      delta: row.delta,
      base_passed: row.basePassed,
      new_passed: row.newPassed,
      outcome: row.outcome,
      change: row.change,
      ...(row.baseError === undefined ? {} : { base_error: row.baseError }),
      ...(row.newError === undefined ? {} : { new_error: row.newError }),
    })),
    only_in_base: c.onlyInBase.map(unmatched),
    only_in_new: c.onlyInNew.map(unmatched),
  };
}
