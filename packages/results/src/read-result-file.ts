import { readFile } from 'node:fs/promises';
import { type EvaluationResult, type EvaluatorResult, formatIssue } from '@agentv/core';
import { type ConversationTurnResult, jsonParseProblem } from '@agentv/core/internal';
import { fromTraceEventRecord, type TokenUsage } from '@agentv/core/provider-utils';
import { describeLineProblems } from './describe-line-problems.js';
import { compileQuickCheck } from './quick-check.js';
import {
  type EvaluatorResultRecord,
  type ResultRecord,
  resultLineSchema,
} from './result-line-schema.js';

/** One line of a result file, parsed, with where it came from. */
export interface ReadResultLine {
  record: ResultRecord;
  /** 1-based line number in the file. */
  line: number;
}

/** Thrown for a result file line that is not a result record; `line` is 1-based. */
export class ResultFileLineError extends Error {
  constructor(
    readonly line: number,
    message: string,
    /** 1-based column of the problem, when known (invalid JSON). */
    readonly column?: number,
  ) {
    super(message);
    this.name = 'ResultFileLineError';
  }

  /** The problem at `file` as messages show it: `file:line:column: message` (column when known). */
  describe(file: string): string {
    return formatIssue({
      severity: 'error',
      file,
      line: this.line,
      ...(this.column === undefined ? {} : { column: this.column }),
      message: this.message,
    });
  }
}

export interface ReadResultFileOptions {
  /**
   * When given, a last line cut short (no newline after it and not valid JSON:
   * the run writing it was stopped mid-write) is left out and reported here,
   * with its 1-based number, instead of throwing.
   */
  onTornLastLine?: (line: number) => void;
}

// zod's parse copies every line it checks; this check of the same schema does not, and a line
// it refuses goes to zod, which decides and says why.
const isResultLine = compileQuickCheck(resultLineSchema);

/**
 * Reads a JSONL result file as `agentv eval` writes it, checking every line
 * against the result-line schema (`resultLineSchema`). Blank lines are
 * skipped. A line that is not JSON throws a `ResultFileLineError` naming the
 * line and column; otherwise the first line that is not a result line throws
 * one naming the line and what is wrong (`evaluator_results: expected an
 * array, got a string`). Records are the lines as read: keys the schema does
 * not know are kept.
 */
export async function readResultFile(
  filePath: string,
  options: ReadResultFileOptions = {},
): Promise<ReadResultLine[]> {
  const text = await readFile(filePath, 'utf8');
  const lines: ReadResultLine[] = [];
  const rows = text.split('\n');
  // Where an unterminated last line is (the text after the last newline), if any.
  const unterminated = rows[rows.length - 1]!.trim() === '' ? -1 : rows.length - 1;
  // A line that is not JSON is named before one that is not a result line, even a later one:
  // a file that is not JSONL at all is reported as such.
  let invalid: ResultFileLineError | undefined;
  for (let index = 0; index < rows.length; index++) {
    const text = rows[index]!;
    const row = text.trim();
    if (row === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(row);
    } catch (error) {
      if (index === unterminated && options.onTornLastLine) {
        options.onTornLastLine(index + 1);
        break;
      }
      const problem = jsonParseProblem(error, row);
      const indent = text.length - text.trimStart().length;
      const torn =
        index === unterminated
          ? '; the last line is incomplete (the run that wrote it was interrupted)'
          : '';
      throw new ResultFileLineError(
        index + 1,
        `invalid JSON: ${problem.message}${torn}`,
        problem.column + indent,
      );
    }
    if (invalid !== undefined) continue;
    const checked = isResultLine(value) ? undefined : resultLineSchema.safeParse(value);
    if (checked?.success === false) {
      invalid = new ResultFileLineError(
        index + 1,
        describeLineProblems(checked.error.issues, value),
      );
      continue;
    }
    // The value read, not zod's copy: it keeps unknown keys, in their order.
    lines.push({ record: value as ResultRecord, line: index + 1 });
  }
  if (invalid !== undefined) throw invalid;
  return lines;
}

/**
 * Turns a result line back into the result the reports and the summary read.
 * `evalFile` is the absolute path to give the result (result lines hold it
 * only relative, in `eval_file`).
 */
export function fromResultRecord(record: ResultRecord, evalFile: string): EvaluationResult {
  const result: EvaluationResult = {
    timestamp: record.timestamp,
    evalId: record.eval_id,
    dataset: record.dataset,
    evalFile,
    target: record.target,
    score: record.score,
    passed: record.passed,
    hits: record.hits,
    misses: record.misses,
    reasoning: record.reasoning,
    candidateAnswer: record.candidate_answer,
    evaluatorResults: record.evaluator_results.map(fromEvaluatorResultRecord),
    attempts: record.attempts,
    durationMs: record.duration_ms,
    traceSummary: record.trace_summary,
  };
  if (record.conversation_id !== undefined) result.conversationId = record.conversation_id;
  if (record.metrics !== undefined) result.metrics = record.metrics;
  if (record.usage !== undefined) result.usage = fromUsageRecord(record.usage);
  if (record.cost_usd !== undefined) result.costUsd = record.cost_usd;
  if (record.cached === true) result.cached = true;
  if (record.judge_usage !== undefined) result.judgeUsage = fromUsageRecord(record.judge_usage);
  if (record.judge_cost_usd !== undefined) result.judgeCostUsd = record.judge_cost_usd;
  if (record.error !== undefined) result.error = record.error;
  if (record.failure_class !== undefined) result.failureClass = record.failure_class;
  if (record.trace) result.trace = record.trace.map(fromTraceEventRecord);
  if (record.workspace !== undefined) {
    result.workspace = {
      filesChanged: record.workspace.files_changed,
      insertions: record.workspace.insertions,
      deletions: record.workspace.deletions,
      ...(record.workspace.kept_at === undefined ? {} : { keptAt: record.workspace.kept_at }),
    };
  }
  if (record.simulator_usage !== undefined) {
    result.simulatorUsage = fromUsageRecord(record.simulator_usage);
  }
  if (record.simulator_cost_usd !== undefined) result.simulatorCostUsd = record.simulator_cost_usd;
  if (record.conversation_end !== undefined) result.conversationEnd = record.conversation_end;
  if (record.turns !== undefined) {
    result.turns = record.turns.map((turn) => {
      const read: ConversationTurnResult = {
        turn: turn.turn,
        source: turn.source,
        userMessage: turn.user_message,
        answer: turn.answer,
        traceSummary: turn.trace_summary,
        evaluatorResults: turn.evaluator_results.map(fromEvaluatorResultRecord),
        attempts: turn.attempts,
        durationMs: turn.duration_ms,
      };
      if (turn.score !== undefined) read.score = turn.score;
      if (turn.passed !== undefined) read.passed = turn.passed;
      if (turn.usage !== undefined) read.usage = fromUsageRecord(turn.usage);
      if (turn.cost_usd !== undefined) read.costUsd = turn.cost_usd;
      if (turn.cached === true) read.cached = true;
      if (turn.error !== undefined) read.error = turn.error;
      if (turn.trace) read.trace = turn.trace.map(fromTraceEventRecord);
      return read;
    });
  }
  if (record.repeats !== undefined) {
    const repeats = record.repeats;
    const ran = repeats.runs.length;
    // Lines of older AgentV lack the figures: they follow from the runs.
    result.repeats = {
      rule: repeats.rule ?? repeats.reducer,
      reducer: repeats.reducer,
      planned: repeats.planned ?? ran,
      flaky: record.flaky === true,
      passRate: repeats.pass_rate ?? (ran === 0 ? 0 : repeats.passed / ran),
      passAtK: repeats.pass_at_k ?? (repeats.passed > 0 ? 1 : 0),
      passHatK: repeats.pass_hat_k ?? (ran > 0 && repeats.passed === ran ? 1 : 0),
      ...(repeats.early_stopped === true ? { earlyStopped: true } : {}),
      runs: repeats.runs.map((run) => ({
        repeat: run.repeat,
        score: run.score,
        passed: run.passed,
        attempts: run.attempts,
        durationMs: run.duration_ms,
        ...(run.cached === true ? { cached: true } : {}),
        ...(run.error === undefined ? {} : { error: run.error }),
      })),
    };
  }
  return result;
}

function fromEvaluatorResultRecord(record: EvaluatorResultRecord): EvaluatorResult {
  const result: EvaluatorResult = {
    name: record.name,
    type: record.type,
    score: record.score,
    weight: record.weight,
    verdict: record.verdict,
    hits: record.hits,
    misses: record.misses,
    reasoning: record.reasoning,
  };
  if (record.error !== undefined) result.error = record.error;
  if (record.fails_case === true) result.failsCase = true;
  if (record.details !== undefined) result.details = record.details;
  if (record.cached === true) result.cached = true;
  if (record.members !== undefined) result.members = record.members.map(fromEvaluatorResultRecord);
  if (record.negated === true) result.negated = true;
  if (record.metric !== undefined) result.metric = record.metric;
  return result;
}

function fromUsageRecord(record: Record<string, number>): TokenUsage {
  const usage: TokenUsage = {};
  for (const [key, count] of Object.entries(record)) {
    usage[key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())] = count;
  }
  return usage;
}
