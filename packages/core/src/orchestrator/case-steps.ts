import path from 'node:path';
import type { FailureClass } from '../errors/failure-class.js';
import { isProviderError } from '../errors/provider-error.js';
import { caseMetrics } from '../evaluators/case-metrics.js';
import type { CaseWorkspace } from '../evaluators/evaluator.js';
import { type CaseGrade, gradeCase } from '../evaluators/grade-case.js';
import type { BuiltPrompt } from '../prompt/build-prompt.js';
import { referenceAnswer } from '../prompt/message-text.js';
import { normalizeTrace } from '../provider/normalize-trace.js';
import type { ProviderRequest } from '../provider/provider-request.js';
import type { ProviderResponse, TokenUsage } from '../provider/provider-response.js';
import type { Sandbox } from '../sandbox/sandbox-runtime.js';
import { summarizeTrace } from '../trace/summarize-trace.js';
import type { TraceEvent } from '../trace/trace-event.js';
import { parseTraceEvents } from '../trace/trace-schemas.js';
import type { TraceSummary } from '../trace/trace-summary.js';
import { isoTimestamp } from '../util/iso-timestamp.js';
import type { CaseBudgetGuard } from './case-budget.js';
import type { CaseContext } from './case-context.js';
import type { AttemptRecord, EvaluationResult } from './evaluation-result.js';
import { messageOf } from './failure-message.js';
import { judgeFor, meteredJudge } from './judge-for.js';
import type { PlannedCase } from './plan-run.js';
import type { RunState } from './run-state.js';

/** The usage of an answer from the cache: nothing new was spent (frozen: results share it). */
const CACHED_USAGE: TokenUsage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/** A provider's answer with its trace, normalised and summarised once for the attempt. */
export interface Answer {
  response: ProviderResponse;
  trace: TraceEvent[] | undefined;
  traceSummary: TraceSummary | null;
  /** Provider calls made for the case, this one included. */
  attempts: number;
  /** The case's `duration_ms`: see `answerOf`. */
  durationMs: number;
}

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

export function buildRequest(
  { planned, run }: CaseContext,
  prompt: BuiltPrompt,
  attempt: number,
  workspace?: { readonly path: string; readonly sandbox?: Sandbox | undefined },
  budget?: CaseBudgetGuard,
): ProviderRequest {
  const { evalCase } = planned;
  const { options } = run;
  // Optional fields assigned one by one: spreads are slow, and batches build a request per case.
  // The fields almost every request has are in the literal: fields added later live in a separate
  // property store, ~40 bytes more per request, and a batch holds every case's request at once.
  const request: ProviderRequest = {
    evalCaseId: evalCase.id,
    attempt,
    question: prompt.question,
    chatPrompt: prompt.chatPrompt,
    guidelines: prompt.guidelines,
    guidelineFiles: prompt.guidelineFiles,
    inputFiles: prompt.inputFiles,
    evalDir: evalDirOf(evalCase.filePath),
    signal: budget !== undefined ? budget.signal : options.signal,
    metadata:
      evalCase.conversationId === undefined
        ? datasetMetadata(evalCase.dataset)
        : { dataset: evalCase.dataset, conversationId: evalCase.conversationId },
  };
  if (options.repeat !== undefined) request.repeat = options.repeat;
  if (evalCase.expectedOutcome !== undefined) request.expectedOutcome = evalCase.expectedOutcome;
  if (budget !== undefined) request.onUsage = (usage, costUsd) => budget.report(usage, costUsd);
  if (workspace !== undefined) {
    request.workspace = workspace.path;
    if (workspace.sandbox !== undefined) request.sandbox = workspace.sandbox;
  }
  return request;
}

// The last eval file's folder and dataset's metadata, shared by the requests of its cases
// (a run goes through its cases file by file) instead of one copy per request.
let lastEvalFile: { filePath: string; evalDir: string } | undefined;
let lastMetadata: { dataset: string; metadata: Record<string, unknown> } | undefined;

function evalDirOf(filePath: string): string {
  if (lastEvalFile?.filePath !== filePath) {
    lastEvalFile = { filePath, evalDir: path.dirname(filePath) };
  }
  return lastEvalFile.evalDir;
}

/** `{ dataset }`, frozen: requests share it, and whoever adds to it makes a copy. */
function datasetMetadata(dataset: string): Record<string, unknown> {
  if (lastMetadata?.dataset !== dataset) {
    lastMetadata = { dataset, metadata: Object.freeze({ dataset }) };
  }
  return lastMetadata.metadata;
}

/** When a case's provider calls ran, for its `duration_ms`. */
export interface CallTiming {
  /** `Date.now()` when the first call started. */
  firstStarted: number;
  /** `Date.now()` when the call that answered started. */
  lastStarted: number;
  /** `Date.now()` when it answered. */
  ended: number;
}

/**
 * Normalises a response's trace and summarises it: once per attempt, for the attempt record
 * and the result. The case's duration is the whole time it spent being answered, as for a
 * case that errored: failed attempts and the waits between them, plus the answering call's
 * time — the agent's own `duration_ms` when it reports one, else the measured time.
 */
export function answerOf(response: ProviderResponse, attempts: number, timing: CallTiming): Answer {
  const trace = normalizeTrace(response);
  const durationMs =
    timing.lastStarted -
    timing.firstStarted +
    (response.durationMs ?? timing.ended - timing.lastStarted);
  return {
    response,
    trace,
    traceSummary: trace ? summarizeTrace(trace) : null,
    attempts,
    durationMs,
  };
}

/**
 * Reports a reply's `warnings` (e.g. trace events dropped as invalid) through
 * `onWarning`, for the first reply with warnings of each target in a run.
 */
export function reportReplyWarnings(
  run: RunState,
  planned: PlannedCase,
  response: ProviderResponse,
): void {
  const onWarning = run.options.onWarning;
  if (response.warnings === undefined || response.warnings.length === 0 || !onWarning) return;
  const target = planned.target.name;
  if (run.warnedTargets.has(target)) return;
  run.warnedTargets.add(target);
  onWarning(
    `target "${target}", case "${planned.evalCase.id}": ${response.warnings.join('; ')} (warnings of this target's later replies are not shown)`,
  );
}

/**
 * A graded result failed for crossing its case's budget after the fact: it keeps its
 * answer and grades, does not pass, and names the limit with the measured value.
 */
export function overBudget(result: EvaluationResult, overrun: string): EvaluationResult {
  result.passed = false;
  result.misses = [`over budget: ${overrun}`, ...result.misses];
  result.reasoning = result.reasoning
    ? `over budget: ${overrun}. ${result.reasoning}`
    : `over budget: ${overrun}`;
  if (result.error === undefined) result.failureClass = 'budget';
  return result;
}

/**
 * Grades an answer and builds the case's result: at once when every grader of the case
 * grades at once (`evaluateNow`), else as a promise.
 */
export function gradeAnswer(
  context: CaseContext,
  prompt: BuiltPrompt,
  answer: Answer,
  workspace?: CaseWorkspace,
): EvaluationResult | Promise<EvaluationResult> {
  const { planned, run } = context;
  const { options } = run;
  const { evalCase } = planned;
  const { response } = answer;
  const shared = judgeFor(planned, run);
  const judge = shared && meteredJudge(shared);
  const grade = gradeCase(
    evalCase.evaluators,
    {
      evalCase,
      question: prompt.question,
      referenceAnswer: referenceAnswer(evalCase),
      candidateAnswer: response.text,
      trace: answer.trace,
      traceSummary: answer.traceSummary,
      outputMessages: response.outputMessages,
      usage: response.usage,
      costUsd: response.costUsd,
      durationMs: answer.durationMs,
      guidelineFiles: prompt.guidelineFiles,
      inputFiles: prompt.inputFiles,
      signal: options.signal,
      // Plain fields, not spreads: V8 builds objects with spreads slowly, and this is per case.
      evaluators: options.evaluatorRegistry,
      env: options.providerContext?.env,
      judge: judge?.judge,
      warn: run.warnGrader,
      workspace,
    },
    options.evaluatorRegistry,
    { threshold: options.threshold ?? evalCase.threshold },
  );
  return grade instanceof Promise
    ? grade.then((waited) => caseResult(planned, answer, waited, judge))
    : caseResult(planned, answer, grade, judge);
}

/** The result of a graded case; `judge` is the case's metered view of its judge. */
function caseResult(
  { evalCase, target }: PlannedCase,
  { response, trace, traceSummary, attempts, durationMs }: Answer,
  grade: CaseGrade,
  judge: ReturnType<typeof meteredJudge> | undefined,
): EvaluationResult {
  const result: EvaluationResult = {
    timestamp: isoTimestamp(),
    evalId: evalCase.id,
    dataset: evalCase.dataset,
    evalFile: evalCase.filePath,
    target: target.name,
    // An errored case has no meaningful score; 0 keeps statistics honest about it.
    score: grade.error === undefined ? grade.score : 0,
    passed: grade.passed,
    hits: grade.hits,
    misses: grade.misses,
    reasoning: grade.reasoning,
    candidateAnswer: response.text,
    evaluatorResults: grade.evaluatorResults,
    attempts,
    durationMs,
    traceSummary,
  };
  // Optional fields only when set, one by one (spreads are slow for a result per case).
  if (evalCase.conversationId !== undefined) result.conversationId = evalCase.conversationId;
  if (response.cached === true) {
    // Answered from the cache: no new tokens were spent, whatever the recorded call cost.
    result.cached = true;
    if (response.usage !== undefined) result.usage = CACHED_USAGE;
    if (response.costUsd !== undefined) result.costUsd = 0;
  } else {
    if (response.usage !== undefined) result.usage = response.usage;
    if (response.costUsd !== undefined) result.costUsd = response.costUsd;
  }
  if (judge?.usage !== undefined) result.judgeUsage = judge.usage;
  if (judge?.costUsd !== undefined) result.judgeCostUsd = judge.costUsd;
  const metrics = caseMetrics(grade.evaluatorResults);
  if (metrics !== undefined) result.metrics = metrics;
  if (grade.error !== undefined) {
    result.error = grade.error;
    result.failureClass = 'grader';
  } else if (!grade.passed) {
    result.failureClass = 'agent';
  }
  if (trace !== undefined) result.trace = trace;
  if (response.outputMessages !== undefined) result.outputMessages = response.outputMessages;
  return result;
}

/**
 * The record of one provider call of a case: its trace, or the error it ended with;
 * `repeat` is the run's repeat under `--repeat N`.
 */
export function attemptRecord(
  { evalCase, target }: PlannedCase,
  attempt: number,
  durationMs: number,
  outcome: Pick<Answer, 'trace' | 'traceSummary' | 'response'> | { error: unknown },
  repeat: number | undefined,
): AttemptRecord {
  const base = {
    evalId: evalCase.id,
    dataset: evalCase.dataset,
    evalFile: evalCase.filePath,
    ...(repeat === undefined ? {} : { repeat }),
    attempt,
    target: target.name,
    durationMs,
  };
  if ('error' in outcome) {
    const { error } = outcome;
    const transcript = isProviderError(error) ? error.transcript : undefined;
    // A call stopped mid-way (its case's budget) keeps what it did until then.
    const partial = isProviderError(error) ? partialTrace(error.trace) : undefined;
    return {
      ...base,
      trace: partial ?? null,
      traceSummary: partial === undefined ? null : summarizeTrace(partial),
      error: messageOf(error),
      ...(transcript === undefined ? {} : { transcript }),
    };
  }
  const { transcript } = outcome.response;
  return {
    ...base,
    trace: outcome.trace ?? null,
    traceSummary: outcome.traceSummary,
    ...(transcript === undefined ? {} : { transcript }),
  };
}

/** What a stopped call had spent and done: its provider's last running totals and its trace so far. */
export interface PartialSpend {
  usage?: TokenUsage;
  costUsd?: number;
  /** The error the call ended with: the trace it carries (`ProviderError.trace`) is kept. */
  error?: unknown;
}

/**
 * The result of a case whose agent was stopped for crossing its budget: failed, not errored,
 * with the usage, cost and trace the call had reached when it was stopped.
 */
export function stoppedOverBudget(
  context: CaseContext,
  attempts: number,
  overrun: string,
  partial: PartialSpend = {},
): EvaluationResult {
  const { error: _none, ...result } = errorResult(context, attempts, '', 'budget');
  const stopped: EvaluationResult = { ...result, reasoning: '' };
  if (partial.usage !== undefined) stopped.usage = partial.usage;
  if (partial.costUsd !== undefined) stopped.costUsd = partial.costUsd;
  const trace = isProviderError(partial.error) ? partialTrace(partial.error.trace) : undefined;
  if (trace !== undefined) {
    stopped.trace = trace;
    stopped.traceSummary = summarizeTrace(trace);
  }
  return overBudget(stopped, `${overrun} (the agent was stopped)`);
}

/** The valid events of the trace a failed call carries (`ProviderError.trace`), if any. */
function partialTrace(trace: readonly unknown[] | undefined): TraceEvent[] | undefined {
  return trace === undefined ? undefined : parseTraceEvents(trace);
}

/** The result of a case that could not be answered or graded; `failureClass` says who is to blame. */
export function errorResult(
  { planned, started }: CaseContext,
  attempts: number,
  error: string,
  failureClass: FailureClass,
): EvaluationResult {
  return {
    timestamp: isoTimestamp(),
    ...resultBase(planned),
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
    failureClass,
    traceSummary: null,
  };
}
