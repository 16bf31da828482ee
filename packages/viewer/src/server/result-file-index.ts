import { open } from 'node:fs/promises';
import {
  createRunStatisticsAccumulator,
  type RunStatisticsAccumulator,
} from '@agentv/core/internal';
import { checkResultLine, fromResultRecord, type ResultRecord } from '@agentv/results';
import type {
  CaseColumns,
  LineProblem,
  MetricCount,
  RunResponse,
  RunSummary,
  SeriesPoint,
} from '../shared/api-types.js';
import { failureClassOf, metricOf, stringsOf } from './optional-fields.js';

/** How much of an answer the table and the free-text search keep per case. */
const TEXT_CHARS = 100;
const READ_CHUNK = 1 << 20;
const HEAD_BYTES = 256;
const TAIL_BYTES = 64;

/** What `stat` says of a result file. */
export interface FileState {
  size: number;
  mtimeMs: number;
  ino: number;
}

/** Interns repeated strings as indexes. */
class Names {
  readonly list: string[] = [];
  private readonly index = new Map<string, number>();
  of(name: string): number {
    let at = this.index.get(name);
    if (at === undefined) {
      at = this.list.length;
      this.list.push(name);
      this.index.set(name, at);
    }
    return at;
  }
}

interface Series {
  cases: number;
  passed: number;
  scoreSum: number;
  graded: number;
}

/**
 * What the viewer keeps of one JSONL result file: a few columns per case and
 * where its line starts, never the lines themselves (a case page reads its line
 * again). `update()` reads only what was appended since the last call, so a file
 * an eval is still writing is followed cheaply; a last line without its newline
 * waits for the next call. A file that was replaced (`replacedBy`) gets a new index.
 */
export class ResultFileIndex {
  /** Bytes read into the index: up to the end of its last whole line. */
  private size = 0;
  /** What `stat` said at the last update. */
  private seen: FileState | undefined;
  /** The file's first bytes and those before `size`, to tell a file written again from one grown. */
  private head = Buffer.alloc(0);
  private tail = Buffer.alloc(0);
  /** Set when a read failed part way: the lines read are in, `size` is not moved past them. */
  private broken = false;
  private readonly offsets: number[] = [];
  private readonly lengths: number[] = [];
  private columns!: CaseColumns;
  private text!: string[];
  private evalFiles!: Names;
  private targets!: Names;
  private graders!: Names;
  private tags!: Names;
  private failureClasses!: Names;
  private metrics!: Map<string, MetricCount>;
  private series!: Map<string, Series>;
  private stats!: RunStatisticsAccumulator;
  private problems!: LineProblem[];
  private lineNumber = 0;
  private runId: string | null = null;
  private label: string | null = null;
  private branch: string | null = null;
  private startedAt: string | null = null;
  private finishedAt: string | null = null;
  private cachedRun: string | undefined;
  private cachedText: string | undefined;
  private cachedSummary: RunSummary | undefined;

  constructor(
    /** Absolute path of the file. */
    readonly file: string,
    /** The run's key (the file as the server names it). */
    readonly key: string,
  ) {
    this.reset();
  }

  private reset(): void {
    this.offsets.length = 0;
    this.lengths.length = 0;
    this.columns = {
      id: [],
      line: [],
      evalFile: [],
      target: [],
      score: [],
      verdict: [],
      durationMs: [],
      costUsd: [],
      graders: [],
      tags: [],
      failureClass: [],
    };
    this.text = [];
    this.evalFiles = new Names();
    this.targets = new Names();
    this.graders = new Names();
    this.tags = new Names();
    this.failureClasses = new Names();
    this.metrics = new Map();
    this.series = new Map();
    this.stats = createRunStatisticsAccumulator({ lowestCount: 0 });
    this.problems = [];
    this.lineNumber = 0;
    this.runId = this.label = this.branch = this.startedAt = this.finishedAt = null;
    this.invalidate();
  }

  private invalidate(): void {
    this.cachedRun = undefined;
    this.cachedText = undefined;
    this.cachedSummary = undefined;
  }

  /**
   * True when the file `stat` now describes is not this index's file grown but another: a new
   * inode (a run that rewrote it through a temporary file, as `--resume` does), a file that shrank
   * or was written again at the same length, or one whose bytes already read changed (a new run
   * writing to the same path, which may already be longer than the old one: its first line holds
   * its own timestamp). Such a file must be read from the start; the catalog does so into a new
   * index, so that the pages never see a half-read run.
   */
  async replacedBy(state: FileState): Promise<boolean> {
    if (this.broken) return true;
    const seen = this.seen;
    if (seen === undefined) return false;
    if (state.ino !== seen.ino || state.size < this.size) return true;
    if (state.size === seen.size) return state.mtimeMs !== seen.mtimeMs;
    if (this.size === 0) return false;
    const handle = await open(this.file, 'r');
    try {
      const head = Buffer.alloc(this.head.length);
      const tail = Buffer.alloc(this.tail.length);
      const [first, last] = await Promise.all([
        handle.read(head, 0, head.length, 0),
        handle.read(tail, 0, tail.length, this.size - tail.length),
      ]);
      return (
        first.bytesRead < head.length ||
        last.bytesRead < tail.length ||
        !head.equals(this.head) ||
        !tail.equals(this.tail)
      );
    } finally {
      await handle.close();
    }
  }

  /**
   * Reads what the file gained since the last call, up to `state.size` (what `stat` said: what is
   * appended after it is read on the next call, so the state kept always describes the bytes
   * read). Resolves to true when the index changed: on the first call, and when lines were added.
   * It takes the file for this one grown (`replacedBy` says when it is not); when a read fails,
   * the index is left to be replaced.
   */
  async update(state: FileState): Promise<boolean> {
    const seen = this.seen;
    if (
      seen !== undefined &&
      state.size === seen.size &&
      state.mtimeMs === seen.mtimeMs &&
      state.ino === seen.ino
    ) {
      return false;
    }
    this.seen = state;
    const lines = this.lineNumber;
    try {
      await this.readUpTo(state.size);
    } catch (error) {
      this.broken = true;
      throw error;
    }
    if (seen !== undefined && this.lineNumber === lines) return false;
    this.invalidate();
    return true;
  }

  private async readUpTo(size: number): Promise<void> {
    if (size <= this.size) return;
    const handle = await open(this.file, 'r');
    try {
      let position = this.size;
      let pending = Buffer.alloc(0);
      const buffer = Buffer.allocUnsafe(READ_CHUNK);
      while (position < size) {
        const want = Math.min(READ_CHUNK, size - position);
        const { bytesRead } = await handle.read(buffer, 0, want, position);
        if (bytesRead === 0) break;
        const chunk = Buffer.concat([pending, buffer.subarray(0, bytesRead)]);
        const chunkStart = position - pending.length;
        let start = 0;
        for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
          this.addLine(chunk.subarray(start, newline), chunkStart + start);
          start = newline + 1;
        }
        pending = Buffer.from(chunk.subarray(start));
        position += bytesRead;
      }
      // A last line without its newline is usually one an eval is still writing: it is read on
      // a later update. One that parses whole (a file written without a final newline) is read now.
      if (pending.length > 0 && isWholeJson(pending)) {
        this.addLine(pending, position - pending.length);
        pending = Buffer.alloc(0);
      }
      this.size = position - pending.length;
      if (this.head.length < HEAD_BYTES && this.size > this.head.length) {
        this.head = Buffer.alloc(Math.min(HEAD_BYTES, this.size));
        await handle.read(this.head, 0, this.head.length, 0);
      }
      this.tail = Buffer.alloc(Math.min(TAIL_BYTES, this.size));
      await handle.read(this.tail, 0, this.tail.length, this.size - this.tail.length);
    } finally {
      await handle.close();
    }
  }

  private addLine(bytes: Buffer, offset: number): void {
    this.lineNumber++;
    const text = bytes.toString('utf8');
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.problems.push({
        line: this.lineNumber,
        message: `invalid JSON: ${(error as Error).message}`,
      });
      return;
    }
    const problem = checkResultLine(value);
    if (problem !== undefined) {
      this.problems.push({ line: this.lineNumber, message: problem });
      return;
    }
    this.add(value as ResultRecord, offset, bytes.length);
  }

  private add(record: ResultRecord, offset: number, length: number): void {
    const columns = this.columns;
    const errored = record.error !== undefined;
    const evalFile = record.eval_file ?? record.dataset;
    const extra = record as Record<string, unknown>;
    columns.id.push(record.eval_id);
    columns.line.push(this.lineNumber);
    columns.evalFile.push(this.evalFiles.of(evalFile));
    columns.target.push(this.targets.of(record.target));
    columns.score.push(errored ? null : record.score);
    columns.verdict.push(errored ? 'errored' : record.passed ? 'passed' : 'failed');
    columns.durationMs.push(record.duration_ms);
    const cost =
      record.cost_usd === undefined && record.judge_cost_usd === undefined
        ? null
        : (record.cost_usd ?? 0) + (record.judge_cost_usd ?? 0);
    columns.costUsd.push(cost);
    columns.graders.push(record.evaluator_results.map((grader) => this.graders.of(grader.name)));
    columns.tags.push(stringsOf(extra.tags).map((tag) => this.tags.of(tag)));
    const failureClass = failureClassOf(extra.failure_class);
    columns.failureClass.push(failureClass === null ? -1 : this.failureClasses.of(failureClass));
    const answer = record.candidate_answer.slice(0, TEXT_CHARS);
    this.text.push(errored ? `${record.error!.slice(0, TEXT_CHARS)}\n${answer}` : answer);
    this.offsets.push(offset);
    this.lengths.push(length);

    for (const grader of record.evaluator_results) {
      const metric = metricOf(grader);
      let count = this.metrics.get(metric);
      if (count === undefined) {
        count = { metric, pass: 0, borderline: 0, fail: 0, error: 0 };
        this.metrics.set(metric, count);
      }
      count[grader.verdict]++;
    }
    const seriesKey = JSON.stringify([evalFile, record.target]);
    let series = this.series.get(seriesKey);
    if (series === undefined) {
      series = { cases: 0, passed: 0, scoreSum: 0, graded: 0 };
      this.series.set(seriesKey, series);
    }
    series.cases++;
    if (record.passed) series.passed++;
    if (!errored) {
      series.graded++;
      series.scoreSum += record.score;
    }
    // Core's run statistics, the same figures the end-of-run summary prints.
    this.stats.add(fromResultRecord(record, evalFile));

    const run = record.run as (ResultRecord['run'] & Record<string, unknown>) | undefined;
    if (run !== undefined) {
      this.runId ??= run.id;
      if (typeof run.label === 'string') this.label ??= run.label;
      if (typeof run.branch === 'string') this.branch ??= run.branch;
    }
    if (this.startedAt === null || record.timestamp < this.startedAt)
      this.startedAt = record.timestamp;
    if (this.finishedAt === null || record.timestamp > this.finishedAt) {
      this.finishedAt = record.timestamp;
    }
  }

  /** Where case `index`'s line is in the file. */
  lineAt(index: number): { offset: number; length: number; line: number } | undefined {
    const offset = this.offsets[index];
    if (offset === undefined) return undefined;
    return { offset, length: this.lengths[index]!, line: this.columns.line[index]! };
  }

  /** The case index of a 1-based line number, or -1. */
  caseOfLine(line: number): number {
    const lines = this.columns.line;
    let low = 0;
    let high = lines.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const at = lines[middle]!;
      if (at === line) return middle;
      if (at < line) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  get caseCount(): number {
    return this.columns.id.length;
  }

  /** The cases' identity and verdict, for `compareRuns`. */
  comparable(target: string | null) {
    const { id, evalFile, target: targets, score, verdict, line } = this.columns;
    const out = [];
    for (let index = 0; index < id.length; index++) {
      const name = this.targets.list[targets[index]!]!;
      if (target !== null && name !== target) continue;
      out.push({
        evalFile: this.evalFiles.list[evalFile[index]!]!,
        evalId: id[index]!,
        target: name,
        score: score[index] ?? 0,
        passed: verdict[index] === 'passed',
        line: line[index]!,
        ...(verdict[index] === 'errored' ? { error: 'errored' } : {}),
      });
    }
    return out;
  }

  summary(): RunSummary {
    if (this.cachedSummary !== undefined) return this.cachedSummary;
    const statistics = this.stats.statistics();
    const series: SeriesPoint[] = [];
    for (const [key, value] of this.series) {
      const [evalFile, target] = JSON.parse(key) as [string, string];
      series.push({
        evalFile,
        target,
        cases: value.cases,
        passRate: value.passed / value.cases,
        meanScore: value.graded === 0 ? null : value.scoreSum / value.graded,
      });
    }
    this.cachedSummary = {
      key: this.key,
      runId: this.runId,
      label: this.label,
      branch: this.branch,
      evalFiles: this.evalFiles.list.slice(),
      targets: this.targets.list.slice(),
      tags: this.tags.list.slice(),
      startedAt: this.startedAt,
      finishedAt: this.finishedAt,
      cases: statistics.total,
      passed: statistics.passed,
      failed: statistics.failed,
      errored: statistics.errored,
      passRate: statistics.passRate,
      meanScore: statistics.mean,
      costUsd: statistics.costUsd,
      durationMs: statistics.durationMs,
      problems: this.problems.slice(0, 100),
      series,
    };
    return this.cachedSummary;
  }

  /** The start of each case's answer, for search (`RunTextResponse`), serialised once per change. */
  textJson(): string {
    this.cachedText ??= JSON.stringify({ text: this.text });
    return this.cachedText;
  }

  /** The run as the run page reads it, serialised once per change of the file. */
  runJson(): string {
    if (this.cachedRun !== undefined) return this.cachedRun;
    const statistics = this.stats.statistics();
    const failureClassCounts = this.failureClasses.list.map((name) => ({ name, count: 0 }));
    for (const at of this.columns.failureClass) if (at >= 0) failureClassCounts[at]!.count++;
    const response: RunResponse = {
      run: this.summary(),
      evalFileNames: this.evalFiles.list,
      targetNames: this.targets.list,
      graderNames: this.graders.list,
      tagNames: this.tags.list,
      failureClassNames: this.failureClasses.list,
      histogram: statistics.histogram,
      metrics: [...this.metrics.values()],
      failureClasses: failureClassCounts.sort((a, b) => b.count - a.count),
      cases: this.columns,
    };
    this.cachedRun = JSON.stringify(response);
    return this.cachedRun;
  }
}

function isWholeJson(bytes: Buffer): boolean {
  try {
    JSON.parse(bytes.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}
