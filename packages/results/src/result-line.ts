import type { EvaluationResult, EvaluatorResult } from '@agentv/core';
import { outputMessageRecord, tokenUsageRecord } from '@agentv/core';
import { type ResultRecordOptions, repeatSummaryRecord } from './to-result-record.js';

/**
 * Renders `JSON.stringify(toResultRecord(result, options))` for every result of
 * a run: the same text, key for key, written straight from the result without
 * building the record. What is the same on every line (`run`, `graded_from`, each
 * eval file's name) is rendered once.
 */
export function createResultLineRenderer(
  options: ResultRecordOptions = {},
): (result: EvaluationResult) => string {
  const tail =
    (options.run === undefined ? '' : `,"run":${JSON.stringify(options.run)}`) +
    (options.gradedFrom === undefined
      ? ''
      : `,"graded_from":${JSON.stringify(options.gradedFrom)}`);
  const evalFileName = options.evalFileName;
  const names = new Map<string, string>();
  const evalFileField = (file: string): string => {
    let field = names.get(file);
    if (field === undefined) {
      field = optional('eval_file', evalFileName!(file));
      names.set(file, field);
    }
    return field;
  };
  return (result) => {
    // Every field through `optional`, as JSON.stringify leaves out an undefined one.
    let line =
      optional('timestamp', result.timestamp) +
      optional('eval_id', result.evalId) +
      optional('dataset', result.dataset) +
      optional('target', result.target) +
      optional('conversation_id', result.conversationId) +
      optional('score', result.score) +
      optional('passed', result.passed) +
      optional('hits', result.hits) +
      optional('misses', result.misses) +
      optional('reasoning', result.reasoning) +
      optional('candidate_answer', result.candidateAnswer) +
      `,"evaluator_results":${evaluatorResults(result.evaluatorResults)}` +
      optional('attempts', result.attempts) +
      optional('duration_ms', result.durationMs);
    if (result.usage !== undefined) line += optional('usage', tokenUsageRecord(result.usage));
    line += optional('cost_usd', result.costUsd);
    if (result.cached === true) line += ',"cached":true';
    if (result.judgeUsage !== undefined) {
      line += optional('judge_usage', tokenUsageRecord(result.judgeUsage));
    }
    line += optional('judge_cost_usd', result.judgeCostUsd) + optional('error', result.error);
    if (result.repeats !== undefined) {
      line +=
        optional('flaky', result.repeats.flaky) +
        optional('repeats', repeatSummaryRecord(result.repeats));
    }
    line += optional('trace_summary', result.traceSummary);
    if (options.includeTrace) {
      line +=
        `,"trace":${JSON.stringify(result.trace ?? null)}` +
        `,"output_messages":${JSON.stringify(result.outputMessages?.map(outputMessageRecord) ?? null)}`;
    }
    if (evalFileName) line += evalFileField(result.evalFile);
    line += tail;
    return line === '' ? '{}' : `{${line.slice(1)}}`;
  };
}

/** `,"key":value`, or nothing when the value is left out of JSON (undefined). */
function optional(key: string, value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? '' : `,"${key}":${text}`;
}

function evaluatorResults(results: readonly EvaluatorResult[]): string {
  let text = '[';
  for (let index = 0; index < results.length; index++) {
    if (index > 0) text += ',';
    text += evaluatorResult(results[index]!);
  }
  return `${text}]`;
}

/** `JSON.stringify(toEvaluatorResultRecord(result))`. */
function evaluatorResult(result: EvaluatorResult): string {
  let text =
    optional('name', result.name) +
    optional('type', result.type) +
    optional('score', result.score) +
    optional('weight', result.weight) +
    optional('verdict', result.verdict) +
    optional('hits', result.hits) +
    optional('misses', result.misses) +
    optional('reasoning', result.reasoning ?? '') +
    optional('error', result.error);
  if (result.failsCase) text += ',"fails_case":true';
  text += optional('details', result.details);
  if (result.cached === true) text += ',"cached":true';
  if (result.members !== undefined) text += `,"members":${evaluatorResults(result.members)}`;
  return `{${text.slice(1)}}`;
}
