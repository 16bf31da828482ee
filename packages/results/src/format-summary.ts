import type { EvaluationResult, RunStatistics, TargetStatistics } from '@agentv/core';
import { terminalText } from './terminal-text.js';

export interface FormatSummaryOptions {
  /** Use ANSI colours. Default false: plain text. */
  color?: boolean;
}

const BAR_WIDTH = 30;
const LINE_WIDTH = 120;

/**
 * The end-of-run summary: case counts, score statistics (3 decimals), the
 * score histogram, each named metric's mean, and the lowest-scoring cases that did not pass (errors
 * first with their message, failed cases with their score and first miss), joined by newlines
 * without a trailing newline. Case ids, target names and messages are `terminalText`.
 */
export function formatSummary(stats: RunStatistics, options: FormatSummaryOptions = {}): string {
  const paint = painter(options.color ?? false);
  const lines: string[] = [];

  lines.push(
    `${stats.total} ${stats.total === 1 ? 'case' : 'cases'}: ` +
      [
        paint('green', `${stats.passed} passed`),
        paint(stats.failed > 0 ? 'red' : 'dim', `${stats.failed} failed`),
        paint(stats.errored > 0 ? 'magenta' : 'dim', `${stats.errored} errored`),
      ].join(', '),
  );
  if (stats.total === 0) return lines.join('\n');
  const failures = failureClassLine(stats);
  if (failures !== undefined) lines.push(failures);
  const usage = usageLine(stats);
  if (usage !== undefined) lines.push(usage);
  const spend = spendLine(stats);
  if (spend !== undefined) lines.push(spend);

  if (stats.mean === null) {
    lines.push('Scores: none (every case errored)');
  } else {
    const excluded = stats.errored > 0 ? `, ${stats.errored} errored excluded` : '';
    lines.push(
      `Scores (${stats.graded} graded${excluded}): ` +
        [
          `mean ${fixed(stats.mean)}`,
          `median ${fixed(stats.median)}`,
          `min ${fixed(stats.min)}`,
          `max ${fixed(stats.max)}`,
          `std ${fixed(stats.standardDeviation)}`,
        ].join('  '),
    );
    lines.push('', 'Score distribution:');
    const largest = Math.max(...stats.histogram.map((bin) => bin.count));
    stats.histogram.forEach((bin, index) => {
      const last = index === stats.histogram.length - 1;
      const range = `[${bin.from.toFixed(1)}, ${bin.to.toFixed(1)}${last ? ']' : ')'}`;
      const length =
        bin.count === 0 ? 0 : Math.max(1, Math.round((bin.count / largest) * BAR_WIDTH));
      const bar = (options.color ? '█' : '#').repeat(length).padEnd(BAR_WIDTH);
      lines.push(`  ${range}  ${paint('cyan', bar)}  ${bin.count}`);
    });
  }

  if (stats.metrics.length > 0) {
    lines.push(
      `Metrics: ${stats.metrics
        .map(
          (metric) =>
            `${terminalText(metric.name)} ${fixed(metric.mean)} (${metric.cases} ${metric.cases === 1 ? 'case' : 'cases'})`,
        )
        .join('  ')}`,
    );
  }

  if (stats.targets.length > 1) lines.push('', 'Targets:', ...targetTable(stats.targets));

  // Passing cases are left out: the list is there to say where to look first.
  const notPassed = stats.lowest.filter((result) => !result.passed);
  if (notPassed.length > 0) {
    lines.push('', 'Lowest-scoring cases:');
    for (const result of notPassed) lines.push(`  ${describeCase(result, paint)}`);
    const more = stats.failed + stats.errored - notPassed.length;
    if (more > 0) lines.push(`  ... and ${more} more that did not pass`);
  }
  return lines.join('\n');
}

/**
 * The targets of a run side by side, one aligned row each: counts, pass rate,
 * mean score, tokens, cost and summed case duration (`-` where unknown).
 */
function targetTable(targets: readonly TargetStatistics[]): string[] {
  const header = [
    'target',
    'cases',
    'passed',
    'failed',
    'errored',
    'pass rate',
    'mean',
    'tokens in',
    'tokens out',
    'cost',
    'duration',
  ];
  const rows = targets.map((target) => [
    terminalText(target.target),
    String(target.total),
    String(target.passed),
    String(target.failed),
    String(target.errored),
    target.passRate === null ? '-' : `${(target.passRate * 100).toFixed(1)}%`,
    fixed(target.mean),
    target.tokens === null ? '-' : count(target.tokens.input),
    target.tokens === null ? '-' : count(target.tokens.output),
    target.costUsd === null ? '-' : usd(target.costUsd),
    `${(target.durationMs / 1000).toFixed(1)}s`,
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  // The name column is left-aligned, the figures right-aligned.
  const line = (cells: string[]) =>
    `  ${cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
      )
      .join('  ')
      .trimEnd()}`;
  return [line(header), ...rows.map(line)];
}

/** `Tokens: 1,200 in (300 cached), 450 out  Cost: $0.0123  Cache: 2 of 5 answers`, or undefined. */
/** `Failures by class: agent 2, infra 1`; undefined when nothing failed. */
function failureClassLine(stats: RunStatistics): string | undefined {
  const classes = FAILURE_CLASS_ORDER.filter((name) => (stats.failureClasses[name] ?? 0) > 0);
  if (classes.length === 0) return undefined;
  return `Failures by class: ${classes.map((name) => `${name} ${stats.failureClasses[name]}`).join(', ')}`;
}

/** `Spend by target: default $0.40 (agent $0.30, judge $0.10)`, when a cost is known and there is a judge or several targets. */
function spendLine(stats: RunStatistics): string | undefined {
  if (stats.costUsd === null || (stats.judgeCostUsd === null && stats.targets.length < 2)) {
    return undefined;
  }
  const parts = stats.targets
    .filter((target) => target.costUsd !== null)
    .map(
      (target) =>
        `${terminalText(target.target)} ${usd(target.costUsd!)} (agent ${usd(target.agentCostUsd ?? 0)}, judge ${usd(target.judgeCostUsd ?? 0)})`,
    );
  return parts.length === 0 ? undefined : `Spend by target: ${parts.join('; ')}`;
}

const FAILURE_CLASS_ORDER = ['agent', 'infra', 'timeout', 'budget', 'grader'] as const;

function usageLine(stats: RunStatistics): string | undefined {
  const parts: string[] = [];
  if (stats.tokens !== null) {
    const cachedTokens = stats.tokens.cached > 0 ? ` (${count(stats.tokens.cached)} cached)` : '';
    parts.push(
      `Tokens: ${count(stats.tokens.input)} in${cachedTokens}, ${count(stats.tokens.output)} out`,
    );
  }
  if (stats.costUsd !== null) {
    const split =
      stats.judgeCostUsd !== null
        ? ` (agent ${usd(stats.agentCostUsd ?? 0)}, judge ${usd(stats.judgeCostUsd)})`
        : '';
    parts.push(`Cost: ~${usd(stats.costUsd)}${split}`);
  }
  if (stats.cached > 0) parts.push(`Cache: ${stats.cached} of ${stats.total} answers`);
  return parts.length === 0 ? undefined : parts.join('  ');
}

/** Dollars with enough decimals that a cheap run does not show as $0.0000: `$0.0105`, `$0.000027`. */
function usd(value: number): string {
  if (value <= 0) return '$0';
  const decimals = Math.min(10, Math.max(4, Math.ceil(-Math.log10(value)) + 1));
  return `$${value.toFixed(decimals)}`;
}

function count(value: number): string {
  // Not toLocaleString for whole numbers: its first call loads locale data, ~30 ms of a run.
  if (!Number.isSafeInteger(value)) return value.toLocaleString('en-US');
  return String(value).replace(/\B(?=(\d{3})+$)/g, ',');
}

function describeCase(result: EvaluationResult, paint: Paint): string {
  const name = terminalText(`${result.evalId} (${result.target})`);
  if (result.error !== undefined) {
    return `${paint('magenta', 'ERROR')}  ${name}: ${oneLine(result.error)}`;
  }
  const status = result.passed ? paint('green', 'PASS ') : paint('red', 'FAIL ');
  const detail = result.misses[0] ?? (result.passed ? undefined : result.reasoning || undefined);
  return `${status}  ${name} ${fixed(result.score)}${detail ? `: ${oneLine(detail)}` : ''}`;
}

function oneLine(text: string): string {
  const first = text.trim().split(/\r?\n/)[0] ?? '';
  return terminalText(first.length > LINE_WIDTH ? `${first.slice(0, LINE_WIDTH - 3)}...` : first);
}

function fixed(value: number | null): string {
  return value === null ? '-' : value.toFixed(3);
}

type Color = 'green' | 'red' | 'magenta' | 'cyan' | 'dim';
type Paint = (color: Color, text: string) => string;

const ANSI: Record<Color, [number, number]> = {
  green: [32, 39],
  red: [31, 39],
  magenta: [35, 39],
  cyan: [36, 39],
  dim: [2, 22],
};

function painter(enabled: boolean): Paint {
  if (!enabled) return (_color, text) => text;
  return (color, text) => `\u001b[${ANSI[color][0]}m${text}\u001b[${ANSI[color][1]}m`;
}
