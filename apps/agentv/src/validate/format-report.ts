import { formatIssue, type Issue } from '@agentv/core';
import { displayPath } from '@agentv/core/internal';
import { terminalText } from '@agentv/results';
import { skippedYamlLine } from '../input-files/detect-file-kind.js';
import { type ColorStream, useColor } from '../use-color.js';
import type { ValidationReport } from './validate-inputs.js';

/** ANSI styles, or none. */
export interface Palette {
  error(text: string): string;
  warning(text: string): string;
  location(text: string): string;
  ok(text: string): string;
}

const plain: Palette = {
  error: (text) => text,
  warning: (text) => text,
  location: (text) => text,
  ok: (text) => text,
};

const ansi: Palette = {
  error: (text) => `\u001b[1;31m${text}\u001b[0m`,
  warning: (text) => `\u001b[1;33m${text}\u001b[0m`,
  location: (text) => `\u001b[1m${text}\u001b[0m`,
  ok: (text) => `\u001b[32m${text}\u001b[0m`,
};

/** Colour only on a terminal, honouring `NO_COLOR` and `FORCE_COLOR` (see `useColor`). */
export function paletteFor(stream: ColorStream, env = process.env): Palette {
  return useColor(stream, env) ? ansi : plain;
}

/**
 * The report as lines: one per issue (`error: file:line:col: case "x":
 * message (hint: ...)`), grouped by file in the order files were checked
 * and by position within a file, then a summary such as
 * `3 files checked: 1 with errors (4 errors, 2 warnings)`.
 */
export function formatReport(report: ValidationReport, cwd: string, palette = plain): string[] {
  const order = new Map(report.files.map((file, index) => [file, index]));
  const rank = (issue: Issue) => order.get(issue.file ?? '') ?? -1;
  const sorted = report.issues
    .map((issue, index) => ({ issue, index }))
    .sort(
      (a, b) =>
        rank(a.issue) - rank(b.issue) ||
        (a.issue.file ?? '').localeCompare(b.issue.file ?? '') ||
        (a.issue.line ?? 0) - (b.issue.line ?? 0) ||
        (a.issue.column ?? 0) - (b.issue.column ?? 0) ||
        a.index - b.index,
    )
    .map(({ issue }) => issue);
  const lines = sorted.map((issue) => {
    // Case ids, target names and values come from the files checked: nothing in them may
    // move the cursor or start a line.
    const text = terminalText(
      formatIssue(
        issue.file === undefined ? issue : { ...issue, file: displayPath(cwd, issue.file) },
      ),
    );
    const colon = text.indexOf(': ');
    const styled =
      colon === -1 ? text : palette.location(text.slice(0, colon + 1)) + text.slice(colon + 1);
    const label = issue.severity === 'error' ? palette.error('error') : palette.warning('warning');
    return `${label}: ${styled}`;
  });
  if (report.skipped.length > 0) {
    lines.push(skippedYamlLine(report.skipped, cwd));
  }
  lines.push(summaryLine(report, palette));
  return lines;
}

function summaryLine(report: ValidationReport, palette: Palette): string {
  const errors = report.issues.filter((issue) => issue.severity === 'error');
  const warnings = report.issues.length - errors.length;
  const filesWithErrors = new Set(errors.map((issue) => issue.file)).size;
  const checked = count(report.files.length, 'file');
  if (errors.length === 0) {
    const suffix = warnings > 0 ? ` (${count(warnings, 'warning')})` : '';
    return `${checked} checked: ${palette.ok('no errors')}${suffix}`;
  }
  return `${checked} checked: ${palette.error(`${filesWithErrors} with errors`)} (${count(errors.length, 'error')}, ${count(warnings, 'warning')})`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
