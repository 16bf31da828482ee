// What the viewer's JSON API answers: the server writes these, the client (and a static export)
// reads them. Types only, so the client bundle imports nothing of the server.

/** A case's verdict as the table shows it. */
export type Verdict = 'passed' | 'failed' | 'errored';

/** One bar of the score histogram: graded cases with a score in [from, to) (the last bin holds 1). */
export interface HistogramBar {
  from: number;
  to: number;
  count: number;
}

/** One result file: a run (or a shard, or a merge), as the history lists it. */
export interface RunSummary {
  /** The file as the server names it (relative to where `agentv view` started); the run's key. */
  key: string;
  /** `run.id` of its lines, when they have one. */
  runId: string | null;
  /** `run.label` / `run.branch` of its lines when a newer AgentV writes them; else null. */
  label: string | null;
  branch: string | null;
  evalFiles: string[];
  targets: string[];
  tags: string[];
  /** First and last `timestamp` of its lines (ISO 8601); null for an empty file. */
  startedAt: string | null;
  finishedAt: string | null;
  cases: number;
  passed: number;
  failed: number;
  errored: number;
  /** `passed / cases`; null for an empty file. */
  passRate: number | null;
  /** Mean score of the graded (not errored) cases; null when none. */
  meanScore: number | null;
  /** Target and judge cost summed; null when no line reports one. */
  costUsd: number | null;
  durationMs: number;
  /** Lines that are not result lines (the viewer skips them and says so). */
  problems: LineProblem[];
  /** Pass rate and mean score per (eval file, target), for the trend charts. */
  series: SeriesPoint[];
}

export interface SeriesPoint {
  evalFile: string;
  target: string;
  cases: number;
  passRate: number;
  meanScore: number | null;
}

export interface LineProblem {
  line: number;
  message: string;
}

export interface RunsResponse {
  runs: RunSummary[];
  /** The folders and files the server reads, as given. */
  sources: string[];
}

/** Counts of one grader metric (`evaluator_results[].metric`, else the grader's type). */
export interface MetricCount {
  metric: string;
  pass: number;
  borderline: number;
  fail: number;
  error: number;
}

/**
 * The cases of a run as columns (one array entry per case, in file order): a 100,000-case run is a
 * few MB of JSON, and the client filters and sorts these arrays without building an object per case.
 * Strings repeated across cases are indexes into the `*Names` tables.
 */
export interface CaseColumns {
  id: string[];
  line: number[];
  evalFile: number[];
  target: number[];
  /** Score, or null for an errored case. */
  score: (number | null)[];
  verdict: Verdict[];
  durationMs: number[];
  costUsd: (number | null)[];
  /** Indexes into `graderNames`. */
  graders: number[][];
  /** Indexes into `tagNames`. */
  tags: number[][];
  /** Index into `failureClassNames`, or -1. */
  failureClass: number[];
}

/**
 * The start of each case's answer (and error), in case order, for free-text search: fetched
 * apart from the run (`/api/run-text`), after the table's first paint, as it is most of the bytes.
 */
export interface RunTextResponse {
  text: string[];
}

export interface RunResponse {
  run: RunSummary;
  evalFileNames: string[];
  targetNames: string[];
  graderNames: string[];
  tagNames: string[];
  failureClassNames: string[];
  histogram: HistogramBar[];
  metrics: MetricCount[];
  failureClasses: { name: string; count: number }[];
  cases: CaseColumns;
}

/** A link to a file saved beside the result file (workspace diff, transcript, dump). */
export interface ArtifactLink {
  label: string;
  /** Server path (`/files/…`), or a relative path in an export. */
  href: string;
}

export interface CaseResponse {
  run: string;
  line: number;
  /** The result line as written (unknown keys kept). */
  record: Record<string, unknown>;
  /** The case's saved workspace changes, when the run saved them. */
  workspace: {
    files: { path: string; status: string; insertions: number; deletions: number }[];
    diff: string;
  } | null;
  artifacts: ArtifactLink[];
}

export interface CompareCase {
  evalFile: string;
  evalId: string;
  baseScore: number;
  newScore: number;
  delta: number;
  basePassed: boolean;
  newPassed: boolean;
  change: 'regressed' | 'fixed' | 'still_passing' | 'still_failing';
  outcome: 'win' | 'loss' | 'tie';
  baseLine: number | null;
  newLine: number | null;
}

export interface PairedChangeView {
  base: number;
  new: number;
  delta: number;
  ci95: [number, number];
}

export interface CompareResponse {
  base: { run: string; target: string | null };
  next: { run: string; target: string | null };
  wins: number;
  losses: number;
  ties: number;
  regressions: number;
  fixes: number;
  passRate: PairedChangeView;
  meanScore: PairedChangeView;
  mcnemar: { b: number; c: number; method: string; statistic?: number; pValue: number };
  bootstrap: { resamples: number; seed: number };
  /** Regressions first, then by score change (as `agentv compare`). */
  cases: CompareCase[];
  onlyInBase: { evalFile: string; evalId: string; target: string }[];
  onlyInNew: { evalFile: string; evalId: string; target: string }[];
}

export interface ErrorResponse {
  error: string;
  hint?: string;
}
