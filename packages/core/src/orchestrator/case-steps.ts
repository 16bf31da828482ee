import { AgentvError } from '../errors/agentv-error.js';
import type { EvalCase } from '../eval-file/eval-case.js';
import { gradeCase } from '../evaluators/grade-case.js';
import { type BuiltPrompt, referenceAnswer } from '../prompt/index.js';
import type { ProviderRequest } from '../provider/provider-request.js';
import type { ProviderResponse } from '../provider/provider-response.js';
import type { TraceEvent } from '../trace/trace-event.js';
import type { TraceSummary } from '../trace/trace-summary.js';
import type { AttemptRecord, EvaluationResult } from './evaluation-result.js';
import type { PlannedCase } from './plan-run.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.js';
import type { RunEvaluationOptions } from './run-evaluation.js';

/** The identifying fields every result of a case carries. */
export type ResultBase = Pick<
  EvaluationResult,
  'evalId' | 'dataset' | 'evalFile' | 'target' | 'conversationId'
>;

export function resultBase({ evalCase, target }: PlannedCase): ResultBase {
  return {
    evalId: evalCase.id,
    dataset: evalCase.dataset,
    evalFile: evalCase.filePath,
    target: target.name,
    ...(evalCase.conversationId === undefined ? {} : { conversationId: evalCase.conversationId }),
  };
}

/** The retry policy for a target: its `max_retries`, else `--max-retries`, else the default. */
export function retryPolicyFor(planned: PlannedCase, options: RunEvaluationOptions): RetryPolicy {
  return {
    ...DEFAULT_RETRY_POLICY,
    ...options.retryPolicy,
    maxRetries: planned.target.maxRetries ?? options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
  };
}

export function buildRequest(
  evalCase: EvalCase,
  prompt: BuiltPrompt,
  attempt: number,
  signal: AbortSignal | undefined,
): ProviderRequest {
  return {
    evalCaseId: evalCase.id,
    attempt,
    question: prompt.question,
    chatPrompt: prompt.chatPrompt,
    guidelines: prompt.guidelines,
    guidelineFiles: prompt.guidelineFiles,
    inputFiles: prompt.inputFiles,
    ...(evalCase.expectedOutcome === undefined
      ? {}
      : { expectedOutcome: evalCase.expectedOutcome }),
    ...(signal === undefined ? {} : { signal }),
    metadata: {
      dataset: evalCase.dataset,
      evalFile: evalCase.filePath,
      ...(evalCase.conversationId === undefined ? {} : { conversationId: evalCase.conversationId }),
    },
  };
}

/** Grades an answer and builds the case's result. */
export async function gradeAnswer(
  planned: PlannedCase,
  prompt: BuiltPrompt,
  response: ProviderResponse,
  trace: TraceEvent[] | undefined,
  traceSummary: TraceSummary | null,
  attempts: number,
  started: number,
  options: RunEvaluationOptions,
): Promise<EvaluationResult> {
  const { evalCase } = planned;
  const grade = await gradeCase(
    evalCase.evaluators,
    {
      evalCase,
      question: prompt.question,
      referenceAnswer: referenceAnswer(evalCase),
      candidateAnswer: response.text,
      trace,
      traceSummary,
      outputMessages: response.outputMessages,
      guidelineFiles: prompt.guidelineFiles,
      inputFiles: prompt.inputFiles,
      signal: options.signal,
    },
    options.evaluatorRegistry,
    { threshold: options.threshold ?? evalCase.threshold },
  );
  return {
    timestamp: new Date().toISOString(),
    ...resultBase(planned),
    // An errored case has no meaningful score; 0 keeps statistics honest about it.
    score: grade.error === undefined ? grade.score : 0,
    passed: grade.passed,
    hits: grade.hits,
    misses: grade.misses,
    reasoning: grade.reasoning,
    candidateAnswer: response.text,
    evaluatorResults: grade.evaluatorResults,
    attempts,
    durationMs: Date.now() - started,
    ...(response.usage === undefined ? {} : { usage: response.usage }),
    ...(response.costUsd === undefined ? {} : { costUsd: response.costUsd }),
    ...(response.cached === true ? { cached: true } : {}),
    ...(grade.error === undefined ? {} : { error: grade.error }),
    traceSummary,
    ...(trace === undefined ? {} : { trace }),
    ...(response.outputMessages === undefined ? {} : { outputMessages: response.outputMessages }),
  };
}

/** The record of one provider call of a case: its trace, or the error it ended with. */
export function attemptRecord(
  { evalCase, target }: PlannedCase,
  attempt: number,
  durationMs: number,
  outcome:
    | { trace: TraceEvent[] | undefined; traceSummary: TraceSummary | null }
    | { error: string },
): AttemptRecord {
  const base = {
    evalId: evalCase.id,
    dataset: evalCase.dataset,
    evalFile: evalCase.filePath,
    attempt,
    target: target.name,
    durationMs,
  };
  return 'error' in outcome
    ? { ...base, trace: null, traceSummary: null, error: outcome.error }
    : { ...base, trace: outcome.trace ?? null, traceSummary: outcome.traceSummary };
}

export function errorResult(
  base: ResultBase,
  started: number,
  attempts: number,
  error: string,
): EvaluationResult {
  return {
    timestamp: new Date().toISOString(),
    ...base,
    score: 0,
    passed: false,
    hits: [],
    misses: [],
    reasoning: '',
    candidateAnswer: '',
    evaluatorResults: [],
    attempts,
    durationMs: Date.now() - started,
    error,
    traceSummary: null,
  };
}

export function messageOf(error: unknown): string {
  if (error instanceof AgentvError && error.hint) return `${error.message} (hint: ${error.hint})`;
  return error instanceof Error ? error.message : String(error);
}
