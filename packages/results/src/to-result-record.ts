import type { EvaluationResult, EvaluatorResult } from '@agentv/core';
import {
  type ConversationTurnResult,
  outputMessageRecord,
  type RepeatSummary,
  tokenUsageRecord,
  type WorkspaceSummary,
} from '@agentv/core/internal';
import { traceRecords } from '@agentv/core/provider-utils';
import type {
  ConversationTurnRecord,
  EvaluatorResultRecord,
  RepeatSummaryRecord,
  ResultRecord,
  RunRecord,
  WorkspaceRecord,
} from './result-line-schema.js';

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
  if (result.metrics !== undefined) record.metrics = result.metrics;
  record.attempts = result.attempts;
  record.duration_ms = result.durationMs;
  if (result.usage !== undefined) record.usage = tokenUsageRecord(result.usage);
  if (result.costUsd !== undefined) record.cost_usd = result.costUsd;
  if (result.cached === true) record.cached = true;
  if (result.judgeUsage !== undefined) record.judge_usage = tokenUsageRecord(result.judgeUsage);
  if (result.judgeCostUsd !== undefined) record.judge_cost_usd = result.judgeCostUsd;
  if (result.simulatorUsage !== undefined) {
    record.simulator_usage = tokenUsageRecord(result.simulatorUsage);
  }
  if (result.simulatorCostUsd !== undefined) record.simulator_cost_usd = result.simulatorCostUsd;
  if (result.error !== undefined) record.error = result.error;
  if (result.failureClass !== undefined) record.failure_class = result.failureClass;
  if (result.repeats !== undefined) {
    record.flaky = result.repeats.flaky;
    record.repeats = repeatSummaryRecord(result.repeats);
  }
  if (result.workspace !== undefined) record.workspace = workspaceRecord(result.workspace);
  if (result.conversationEnd !== undefined) record.conversation_end = result.conversationEnd;
  if (result.turns !== undefined) {
    record.turns = result.turns.map((turn) => turnRecord(turn, options.includeTrace === true));
  }
  record.trace_summary = result.traceSummary;
  if (options.includeTrace) {
    record.trace = result.trace ? traceRecords(result.trace) : null;
    record.output_messages = result.outputMessages?.map(outputMessageRecord) ?? null;
  }
  if (options.evalFileName) record.eval_file = options.evalFileName(result.evalFile);
  if (options.run) record.run = options.run;
  if (options.gradedFrom !== undefined) record.graded_from = options.gradedFrom;
  return record;
}

function turnRecord(turn: ConversationTurnResult, includeTrace: boolean): ConversationTurnRecord {
  const record: ConversationTurnRecord = {
    turn: turn.turn,
    source: turn.source,
    user_message: turn.userMessage,
    answer: turn.answer,
    trace_summary: turn.traceSummary,
    evaluator_results: turn.evaluatorResults.map(toEvaluatorResultRecord),
    attempts: turn.attempts,
    duration_ms: turn.durationMs,
  };
  if (turn.score !== undefined) record.score = turn.score;
  if (turn.passed !== undefined) record.passed = turn.passed;
  if (turn.usage !== undefined) record.usage = tokenUsageRecord(turn.usage);
  if (turn.costUsd !== undefined) record.cost_usd = turn.costUsd;
  if (turn.cached === true) record.cached = true;
  if (turn.error !== undefined) record.error = turn.error;
  if (includeTrace) record.trace = turn.trace ? traceRecords(turn.trace) : null;
  return record;
}

function workspaceRecord(summary: WorkspaceSummary): WorkspaceRecord {
  const record: WorkspaceRecord = {
    files_changed: summary.filesChanged,
    insertions: summary.insertions,
    deletions: summary.deletions,
  };
  if (summary.keptAt !== undefined) record.kept_at = summary.keptAt;
  return record;
}

function repeatSummaryRecord(summary: RepeatSummary): RepeatSummaryRecord {
  return {
    rule: summary.rule,
    reducer: summary.reducer,
    count: summary.runs.length,
    planned: summary.planned,
    passed: summary.runs.filter((run) => run.passed).length,
    pass_rate: summary.passRate,
    pass_at_k: summary.passAtK,
    pass_hat_k: summary.passHatK,
    ...(summary.earlyStopped === true ? { early_stopped: true as const } : {}),
    runs: summary.runs.map((run) => ({
      repeat: run.repeat,
      score: run.score,
      passed: run.passed,
      attempts: run.attempts,
      duration_ms: run.durationMs,
      ...(run.cached === true ? { cached: true as const } : {}),
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
  if (result.metric !== undefined) record.metric = result.metric;
  return record;
}
