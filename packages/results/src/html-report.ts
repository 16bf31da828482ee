import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { computeRunStatistics, type EvaluationResult, type RunStatistics } from '@agentv/core';
import type { TraceSummary } from '@agentv/core/internal';
import type { TraceEvent } from '@agentv/core/provider-utils';
import {
  cutForDisplay,
  displayAnswer,
  displayText,
  displayTrace,
  REPORT_TEXT_CHARS,
} from './cut-for-display.js';
import { REPORT_SCRIPT, REPORT_STYLES } from './html-report-assets.js';
import type { WorkspaceChanges } from './workspace-changes-writer.js';
import { writeFileAtomically } from './write-file-atomically.js';

export interface HtmlReportOptions {
  /** Shown as the page title. Default `AgentV report`. */
  title?: string;
  /** Eval file paths are shown relative to this folder. */
  relativeTo?: string;
  /** When the report was made. Default now. */
  generatedAt?: Date;
  /** Path of the result file, shown in the header. */
  resultFile?: string;
  /** Set when the run was interrupted, e.g. `interrupted: 3 of 10 cases did not run`: shown as a banner. */
  interrupted?: string;
  /** The changed files and diff of a case with a workspace, when saved (shown with its summary). */
  workspaceChanges?: (result: EvaluationResult) => WorkspaceChanges | undefined;
}

/** A case's workspace as the report shows it. */
export interface HtmlReportWorkspace {
  filesChanged: number;
  insertions: number;
  deletions: number;
  keptAt: string | null;
  /** Null when the changes were not saved: only the counts are known. */
  files: { path: string; status: string; binary: boolean }[] | null;
  diff: string | null;
}

/** One case as the report's script receives it. */
export interface HtmlReportCase {
  id: string;
  dataset: string;
  evalFile: string;
  target: string;
  status: 'passed' | 'failed' | 'errored';
  /** Who a failed or errored case's failure is on (`failure_class`); null when it passed. */
  failureClass: string | null;
  score: number;
  durationMs: number;
  attempts: number;
  answer: string;
  error: string | null;
  hits: string[];
  misses: string[];
  reasoning: string;
  evaluators: {
    name: string;
    type: string;
    score: number;
    weight: number;
    verdict: string;
    /** The named metric it counts toward, or null. */
    metric: string | null;
    hits: string[];
    misses: string[];
    reasoning: string;
    error: string | null;
  }[];
  traceSummary: TraceSummary | null;
  trace: TraceEvent[] | null;
  workspace: HtmlReportWorkspace | null;
  /** A conversation case's turns, shown as a chat; null for other cases. */
  conversation: HtmlReportConversation | null;
}

/** A conversation as the report shows it. */
export interface HtmlReportConversation {
  /** Why it ended (`conversation_end`). */
  end: string;
  turns: {
    turn: number;
    source: string;
    user: string;
    answer: string;
    /** The turn's grade; null when it has no graders. */
    status: 'passed' | 'failed' | 'errored' | null;
    score: number | null;
    misses: string[];
    error: string | null;
  }[];
}

/** Everything the report shows, embedded in the page as JSON. */
export interface HtmlReportData {
  title: string;
  generatedAt: string;
  resultFile: string | null;
  statistics: Omit<RunStatistics, 'lowest'>;
  cases: HtmlReportCase[];
}

/**
 * Renders a run as one self-contained HTML page: inline styles and script, no
 * external URL, the data embedded as JSON in a `<script type="application/json">`
 * (with `<`, `>`, `&` and line separators escaped, so no answer or trace can end
 * the script or inject markup). The page shows the summary counts and score
 * statistics, each named metric's mean, the score histogram, a table of cases that can be filtered to
 * failed or errored ones and searched by id, and for each case its answer,
 * evaluator results, trace as a timeline and, for a case with a workspace, the
 * files it changed and the diff (collapsed). A Content-Security-Policy forbids
 * any network access. Answers, reasoning and trace payloads too long to show
 * are cut with a marker (`… [cut: 15.2 MiB more; …]`); the result file has them whole.
 */
export function renderHtmlReport(
  results: readonly EvaluationResult[],
  options: HtmlReportOptions = {},
): string {
  const { lowest: _lowest, ...statistics } = computeRunStatistics(results, { lowestCount: 0 });
  const data: HtmlReportData = {
    title: options.title ?? 'AgentV report',
    generatedAt: (options.generatedAt ?? new Date()).toISOString(),
    resultFile: options.resultFile ?? null,
    statistics,
    cases: results.map((result) =>
      toReportCase(result, options.relativeTo, options.workspaceChanges),
    ),
  };
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(data.title)}</title>`,
    `<style>${REPORT_STYLES}</style>`,
    '</head>',
    '<body>',
    '<noscript>This report needs JavaScript to show its results.</noscript>',
    ...(options.interrupted === undefined
      ? []
      : [
          `<div id="agentv-interrupted" role="alert" style="background:#b42318;color:#fff;font:600 16px system-ui,sans-serif;padding:12px 16px">Incomplete run \u2014 ${escapeHtml(options.interrupted)}</div>`,
        ]),
    '<main id="app"></main>',
    `<script type="application/json" id="agentv-data">${embedJson(data)}</script>`,
    `<script>${REPORT_SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/**
 * Writes `renderHtmlReport(results)` to `filePath`, creating its parent directories.
 * The file is replaced whole or not at all (see `writeFileAtomically`).
 */
export async function writeHtmlReport(
  filePath: string,
  results: readonly EvaluationResult[],
  options: HtmlReportOptions = {},
): Promise<void> {
  await mkdir(path.dirname(filePath), { recursive: true });
  await writeFileAtomically(filePath, renderHtmlReport(results, options));
}

// Long answers, reasoning and trace payloads are cut (`cut-for-display.ts`): the page stays
// small enough to open, and the result file keeps everything the graders saw.
function toReportCase(
  result: EvaluationResult,
  relativeTo: string | undefined,
  workspaceChanges: HtmlReportOptions['workspaceChanges'],
): HtmlReportCase {
  const trace = result.trace ? displayTrace(result.trace) : null;
  return {
    id: result.evalId,
    dataset: result.dataset,
    evalFile: relativeTo ? path.relative(relativeTo, result.evalFile) : result.evalFile,
    target: result.target,
    status: result.error !== undefined ? 'errored' : result.passed ? 'passed' : 'failed',
    failureClass: result.failureClass ?? null,
    score: result.score,
    durationMs: result.durationMs,
    attempts: result.attempts,
    answer: displayAnswer(result.candidateAnswer),
    error: result.error === undefined ? null : displayText(result.error),
    hits: result.hits.map(displayText),
    misses: result.misses.map(displayText),
    reasoning: displayText(result.reasoning),
    evaluators: result.evaluatorResults.map((evaluator) => ({
      name: evaluator.name,
      type: evaluator.type,
      score: evaluator.score,
      weight: evaluator.weight,
      verdict: evaluator.verdict,
      metric: evaluator.metric ?? null,
      hits: evaluator.hits.map(displayText),
      misses: evaluator.misses.map(displayText),
      reasoning: displayText(evaluator.reasoning ?? ''),
      error: evaluator.error === undefined ? null : displayText(evaluator.error),
    })),
    traceSummary: result.traceSummary,
    trace,
    workspace: reportWorkspace(result, workspaceChanges),
    conversation: reportConversation(result),
  };
}

function reportConversation(result: EvaluationResult): HtmlReportConversation | null {
  if (result.turns === undefined) return null;
  return {
    end: result.conversationEnd ?? 'completed',
    turns: result.turns.map((turn) => ({
      turn: turn.turn,
      source: turn.source,
      user: displayAnswer(turn.userMessage),
      answer: displayAnswer(turn.answer),
      status:
        turn.error !== undefined
          ? 'errored'
          : turn.passed === undefined
            ? null
            : turn.passed
              ? 'passed'
              : 'failed',
      score: turn.score ?? null,
      misses: turn.evaluatorResults.flatMap((entry) => entry.misses).map(displayText),
      error: turn.error === undefined ? null : displayText(turn.error),
    })),
  };
}

function reportWorkspace(
  result: EvaluationResult,
  workspaceChanges: HtmlReportOptions['workspaceChanges'],
): HtmlReportWorkspace | null {
  const summary = result.workspace;
  if (summary === undefined) return null;
  const changes = workspaceChanges?.(result);
  return {
    filesChanged: summary.filesChanged,
    insertions: summary.insertions,
    deletions: summary.deletions,
    keptAt: summary.keptAt ?? null,
    files:
      changes?.files.map((file) => ({
        path: file.path,
        status: file.status,
        binary: file.binary === true,
      })) ?? null,
    diff:
      changes === undefined
        ? null
        : cutForDisplay(
            changes.diff,
            REPORT_TEXT_CHARS,
            'the whole diff is saved beside the result file',
          ),
  };
}

/** JSON that is safe inside a `<script>` element whatever strings it holds. */
function embedJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (char) => {
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}
