import type { EvaluationResult, EvaluatorResult, Verdict } from '@agentv/core';
import {
  type OutputMessageRecord,
  outputMessageRecord,
  type RepeatSummary,
  type TraceSummary,
  tokenUsageRecord,
} from '@agentv/core/internal';
import type { TraceEvent } from '@agentv/core/provider-utils';

/** One evaluator's outcome in a result line. */
export interface EvaluatorResultRecord {
  name: string;
  type: string;
  score: number;
  weight: number;
  verdict: Verdict | 'error';
  hits: string[];
  misses: string[];
  /** Empty when the evaluator gave none. */
  reasoning: string;
  error?: string;
  /** True when this evaluator fails the case whatever the score (a missed required rubric item). */
  fails_case?: boolean;
  /** Evaluator-specific outcome; `rubric` gives `items: [{id, description, weight, required, satisfied, reasoning}]`. */
  details?: Record<string, unknown>;
  /** True when the judge's reply came from the LLM call cache (`.agentv/cache`): nothing was asked. */
  cached?: boolean;
  /** A `composite`'s member results, in order. */
  members?: EvaluatorResultRecord[];
  /** The grader had `negate: true`: its score is 1 - s, its hits and misses swapped. */
  negated?: boolean;
}

/** One result line (README, "Running"): snake_case, keys in this order. */
export interface ResultRecord {
  timestamp: string;
  eval_id: string;
  dataset: string;
  target: string;
  conversation_id?: string;
  score: number;
  passed: boolean;
  hits: string[];
  misses: string[];
  reasoning: string;
  candidate_answer: string;
  evaluator_results: EvaluatorResultRecord[];
  attempts: number;
  duration_ms: number;
  /** Token counts with snake_case keys (`input_tokens`, ...). */
  usage?: Record<string, number>;
  cost_usd?: number;
  /** Present (true) when the provider answered from its cache. */
  cached?: true;
  /** Tokens of the judge calls that graded this case (snake_case keys). */
  judge_usage?: Record<string, number>;
  /** Summed cost of those judge calls, when known. */
  judge_cost_usd?: number;
  error?: string;
  /** Under `--repeat N`: true when the case's verdict changed between repeats. */
  flaky?: boolean;
  /** Under `--repeat N`: the reducer and every repeat this aggregated line was reduced from. */
  repeats?: RepeatSummaryRecord;
  /** Null when the provider produced no trace. */
  trace_summary: TraceSummary | null;
  /** Only with `includeTrace`; null when there is no trace. */
  trace?: TraceEvent[] | null;
  /** Only with `includeTrace`; null when there are no output messages. */
  output_messages?: OutputMessageRecord[] | null;
  /** The eval file, relative to its project root (only when `evalFileName` is given). */
  eval_file?: string;
  /** Which run and shard wrote this line (only when `run` is given); `agentv results merge` checks it. */
  run?: RunRecord;
  /** Set by `agentv grade`: the result file whose recorded answers this line re-graded. */
  graded_from?: string;
}

export interface RepeatSummaryRecord {
  reducer: string;
  count: number;
  passed: number;
  runs: {
    repeat: number;
    score: number;
    passed: boolean;
    attempts: number;
    duration_ms: number;
    error?: string;
  }[];
}

/** What identifies the run a result line belongs to. */
export interface RunRecord {
  /** Hash of every (eval file, case id, target) the run selected, before sharding. */
  id: string;
  /** How many cases the whole run has, across all shards. */
  cases: number;
  /** `i/n` when the line was written by one shard of the run. */
  shard?: string;
}

export interface ResultRecordOptions {
  /** Add the full `trace` and `output_messages`. Default false. */
  includeTrace?: boolean;
  /** Names the eval file in `eval_file` (e.g. relative to the project root). */
  evalFileName?: (absolutePath: string) => string;
  /** Written as `run` on every line. */
  run?: RunRecord;
  /** Written as `graded_from` on every line (`agentv grade`: the result file re-graded). */
  gradedFrom?: string;
}

/**
 * Converts a result to its result line. The trace summary is the result's own,
 * else computed from its trace when it has one, else null.
 */
export function toResultRecord(
  result: EvaluationResult,
  options: ResultRecordOptions = {},
): ResultRecord {
  // Keys assigned in the order of the line, optional ones only when set: no spreads, as
  // objects built with them are slow and every result of a run goes through here.
  const record: ResultRecord = {
    timestamp: result.timestamp,
    eval_id: result.evalId,
    dataset: result.dataset,
    target: result.target,
  } as ResultRecord;
  if (result.conversationId !== undefined) record.conversation_id = result.conversationId;
  record.score = result.score;
  record.passed = result.passed;
  record.hits = result.hits;
  record.misses = result.misses;
  record.reasoning = result.reasoning;
  record.candidate_answer = result.candidateAnswer;
  record.evaluator_results = result.evaluatorResults.map(toEvaluatorResultRecord);
  record.attempts = result.attempts;
  record.duration_ms = result.durationMs;
  if (result.usage !== undefined) record.usage = tokenUsageRecord(result.usage);
  if (result.costUsd !== undefined) record.cost_usd = result.costUsd;
  if (result.cached === true) record.cached = true;
  if (result.judgeUsage !== undefined) record.judge_usage = tokenUsageRecord(result.judgeUsage);
  if (result.judgeCostUsd !== undefined) record.judge_cost_usd = result.judgeCostUsd;
  if (result.error !== undefined) record.error = result.error;
  if (result.repeats !== undefined) {
    record.flaky = result.repeats.flaky;
    record.repeats = repeatSummaryRecord(result.repeats);
  }
  record.trace_summary = result.traceSummary;
  if (options.includeTrace) {
    record.trace = result.trace ?? null;
    record.output_messages = result.outputMessages?.map(outputMessageRecord) ?? null;
  }
  if (options.evalFileName) record.eval_file = options.evalFileName(result.evalFile);
  if (options.run) record.run = options.run;
  if (options.gradedFrom !== undefined) record.graded_from = options.gradedFrom;
  return record;
}

function repeatSummaryRecord(summary: RepeatSummary): RepeatSummaryRecord {
  return {
    reducer: summary.reducer,
    count: summary.runs.length,
    passed: summary.runs.filter((run) => run.passed).length,
    runs: summary.runs.map((run) => ({
      repeat: run.repeat,
      score: run.score,
      passed: run.passed,
      attempts: run.attempts,
      duration_ms: run.durationMs,
      ...(run.error === undefined ? {} : { error: run.error }),
    })),
  };
}

function toEvaluatorResultRecord(result: EvaluatorResult): EvaluatorResultRecord {
  const record: EvaluatorResultRecord = {
    name: result.name,
    type: result.type,
    score: result.score,
    weight: result.weight,
    verdict: result.verdict,
    hits: result.hits,
    misses: result.misses,
    reasoning: result.reasoning ?? '',
  };
  if (result.error !== undefined) record.error = result.error;
  if (result.failsCase) record.fails_case = true;
  if (result.details !== undefined) record.details = result.details;
  if (result.cached === true) record.cached = true;
  if (result.members !== undefined) record.members = result.members.map(toEvaluatorResultRecord);
  if (result.negated === true) record.negated = true;
  return record;
}
