import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { EvaluationResult } from '@agentv/core';
import { displayAnswer, displayText } from './cut-for-display.js';
import { escapeXml } from './escape-xml.js';
import { writeFileAtomically } from './write-file-atomically.js';

export interface JunitOptions {
  /** Name of the `<testsuites>` element. Default `agentv`. */
  name?: string;
  /** Eval file paths in `file` attributes are written relative to this folder. */
  relativeTo?: string;
  /**
   * Cases an interrupted run never ran: written as `<testcase>`s with
   * `<skipped>` in a testsuite named `not run (interrupted)`, counted in `skipped`.
   */
  notRun?: readonly NotRunCase[];
}

/** A case of the run that never ran (the run was interrupted). */
export interface NotRunCase {
  evalFile: string;
  dataset: string;
  evalId: string;
  target: string;
}

const MESSAGE_LENGTH = 300;

/**
 * Renders results as JUnit XML: one `<testsuite>` per eval file (named after
 * its dataset, in order of first result; with several targets one per eval
 * file and target, named `dataset [target]`, with a `target` property and
 * `classname` = `dataset.target`) with `tests`, `failures`, `errors`,
 * `skipped` and `time` (seconds) attributes, one `<testcase>` per case
 * (`classname` = dataset, `name` = case id) carrying `<failure>` for a case
 * that failed (message: its first miss, body: every miss and the reasoning) or
 * `<error>` for a case that errored (message and body: the error), and the
 * answer in `<system-out>`. Named metrics are `metric.<name>` properties: each case's
 * score on its testcase, their mean on its testsuite. Every value is escaped, control characters included;
 * answers and bodies too long to show are cut with a marker (`cut-for-display.ts`).
 */
export function formatJunitXml(
  results: readonly EvaluationResult[],
  options: JunitOptions = {},
): string {
  const notRun = options.notRun ?? [];
  // With several targets each (eval file, target) is a suite of its own, and the target goes
  // into the classname (`dataset.target`), so CI tools list every target's cases apart.
  const multiTarget =
    new Set([...results.map((result) => result.target), ...notRun.map((c) => c.target)]).size > 1;
  const suites = new Map<string, EvaluationResult[]>();
  for (const result of results) {
    const key = multiTarget ? `${result.evalFile}\u0000${result.target}` : result.evalFile;
    const suite = suites.get(key);
    if (suite) suite.push(result);
    else suites.set(key, [result]);
  }
  const counted = countOf(results);
  const totals =
    notRun.length === 0
      ? counted
      : { ...counted, tests: counted.tests + notRun.length, skipped: notRun.length };
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites ${attributes({ name: options.name ?? 'agentv', ...totals })}>`,
  ];
  for (const cases of suites.values()) {
    const { evalFile, dataset, target } = cases[0]!;
    const file = options.relativeTo ? path.relative(options.relativeTo, evalFile) : evalFile;
    lines.push(
      `  <testsuite ${attributes({
        name: multiTarget ? `${dataset} [${target}]` : dataset,
        ...countOf(cases),
        skipped: 0,
        timestamp: earliestStart(cases),
        file,
      })}>`,
    );
    const properties = metricProperties(suiteMetrics(cases), '      ');
    if (multiTarget) {
      properties.unshift(`      <property ${attributes({ name: 'target', value: target })} />`);
    }
    if (properties.length > 0) lines.push('    <properties>', ...properties, '    </properties>');
    const classname = multiTarget ? `${dataset}.${target}` : dataset;
    for (const result of cases) lines.push(...testcase(result, file, classname));
    lines.push('  </testsuite>');
  }
  if (notRun.length > 0) {
    const message = `run interrupted: ${notRun.length} of ${results.length + notRun.length} cases did not run`;
    lines.push(
      `  <testsuite ${attributes({ name: 'not run (interrupted)', tests: notRun.length, failures: 0, errors: 0, skipped: notRun.length, time: seconds(0) })}>`,
      '    <properties>',
      `      <property ${attributes({ name: 'interrupted', value: message })} />`,
      '    </properties>',
    );
    for (const missing of notRun) {
      const file = options.relativeTo
        ? path.relative(options.relativeTo, missing.evalFile)
        : missing.evalFile;
      lines.push(
        `    <testcase ${attributes({ name: missing.evalId, classname: multiTarget ? `${missing.dataset}.${missing.target}` : missing.dataset, time: seconds(0), file })}>`,
        `      <skipped ${attributes({ message: `not run: ${message} (target ${missing.target})` })} />`,
        '    </testcase>',
      );
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}

/**
 * Writes `formatJunitXml(results)` to `filePath`, creating its parent directories.
 * The file is replaced whole or not at all (see `writeFileAtomically`).
 */
export async function writeJunitReport(
  filePath: string,
  results: readonly EvaluationResult[],
  options: JunitOptions = {},
): Promise<void> {
  await mkdir(path.dirname(filePath), { recursive: true });
  await writeFileAtomically(filePath, formatJunitXml(results, options));
}

function testcase(result: EvaluationResult, file: string, classname: string): string[] {
  const open = `    <testcase ${attributes({
    name: result.evalId,
    classname,
    time: seconds(result.durationMs),
    file,
  })}>`;
  const body: string[] = [];
  const properties = metricProperties(result.metrics, '        ');
  if (properties.length > 0) body.push('      <properties>', ...properties, '      </properties>');
  if (result.error !== undefined) {
    body.push(
      `      <error ${attributes({ message: shorten(result.error), type: result.failureClass ?? 'error' })}>${escapeXml(displayText(result.error))}</error>`,
    );
  } else if (!result.passed) {
    const details = [
      `score ${result.score.toFixed(3)} (target ${result.target})`,
      ...result.misses.map((miss) => `miss: ${miss}`),
      ...(result.reasoning ? [`reasoning: ${result.reasoning}`] : []),
    ].join('\n');
    const message = result.misses[0] ?? `score ${result.score.toFixed(3)} did not pass`;
    body.push(
      `      <failure ${attributes({ message: shorten(message), type: result.failureClass ?? 'failed' })}>${escapeXml(displayText(details))}</failure>`,
    );
  }
  if (result.candidateAnswer !== '') {
    body.push(`      <system-out>${escapeXml(displayAnswer(result.candidateAnswer))}</system-out>`);
  }
  if (body.length === 0) return [open.replace(/>$/, ' />')];
  return [open, ...body, '    </testcase>'];
}

/** `<property name="metric.<name>" value="0.750" />` lines, one per named metric. */
function metricProperties(metrics: Record<string, number> | undefined, indent: string): string[] {
  if (metrics === undefined) return [];
  return Object.entries(metrics).map(
    ([name, score]) =>
      `${indent}<property ${attributes({ name: `metric.${name}`, value: score.toFixed(3) })} />`,
  );
}

/** Each named metric's mean over the cases of a suite that report it. */
function suiteMetrics(results: readonly EvaluationResult[]): Record<string, number> | undefined {
  const sums = new Map<string, { total: number; cases: number }>();
  for (const result of results) {
    for (const [name, score] of Object.entries(result.metrics ?? {})) {
      const sum = sums.get(name) ?? { total: 0, cases: 0 };
      sum.total += score;
      sum.cases++;
      sums.set(name, sum);
    }
  }
  if (sums.size === 0) return undefined;
  return Object.fromEntries(
    [...sums]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, { total, cases }]) => [name, total / cases]),
  );
}

function countOf(results: readonly EvaluationResult[]) {
  const errors = results.filter((result) => result.error !== undefined).length;
  const failures = results.filter((result) => result.error === undefined && !result.passed).length;
  const time = results.reduce((sum, result) => sum + result.durationMs, 0);
  return { tests: results.length, failures, errors, time: seconds(time) };
}

/** When the first case of the suite started, as JUnit's zone-less `xs:dateTime`. */
function earliestStart(results: readonly EvaluationResult[]): string {
  const starts = results
    .map((result) => Date.parse(result.timestamp) - result.durationMs)
    .filter((value) => Number.isFinite(value));
  const start = starts.length > 0 ? new Date(Math.min(...starts)) : new Date();
  return start.toISOString().slice(0, 19);
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function shorten(text: string): string {
  const first = text.trim().split(/\r?\n/)[0] ?? '';
  return first.length > MESSAGE_LENGTH ? `${first.slice(0, MESSAGE_LENGTH - 3)}...` : first;
}

function attributes(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([key, value]) => `${key}="${escapeXml(String(value), true)}"`)
    .join(' ');
}
