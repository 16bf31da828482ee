import path from 'node:path';
import { isAgentvError } from '../errors/agentv-error.js';
import { isProviderError } from '../errors/provider-error.js';
import type { EvaluationContext, Judge } from '../evaluators/evaluator.js';
import { EvaluatorError } from '../evaluators/evaluator-error.js';
import { gradeCase } from '../evaluators/grade-case.js';
import { createJudge } from '../evaluators/judge.js';
import { LIBRARY_OPTION_NAMES } from '../project/option-names.js';
import type { BuiltPrompt } from '../prompt/build-prompt.js';
import { referenceAnswer } from '../prompt/message-text.js';
import { normalizeTrace } from '../provider/normalize-trace.js';
import type { Provider } from '../provider/provider.js';
import type { ProviderRequest } from '../provider/provider-request.js';
import type { ProviderResponse, TokenUsage } from '../provider/provider-response.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import { addTokenUsage } from '../provider/token-usage.js';
import {
  DEFAULT_RETRY_POLICY,
  describeRetryAfterBeyondCap,
  type RetryPolicy,
  type WithRetriesOptions,
} from '../retry/retry-policy.js';
import { retryWaitLine } from '../retry/retry-wait-line.js';
import { summarizeTrace } from '../trace/summarize-trace.js';
import type { TraceEvent } from '../trace/trace-event.js';
import type { TraceSummary } from '../trace/trace-summary.js';
import type { AttemptRecord, EvaluationResult } from './evaluation-result.js';
import { DRY_RUN_JUDGE_REPLY, type PlannedCase } from './plan-run.js';
import type { ProviderRole, RunEvaluationOptions } from './run-options.js';

/** What every step of one case needs: the case, the run's options and when the case started. */
export interface CaseContext {
  planned: PlannedCase;
  options: RunEvaluationOptions;
  /** `Date.now()` when the case started; results report the time since. */
  started: number;
}

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

/** The retry policy for a target: `--max-retries`, else its `max_retries`, else the default. */
export function retryPolicyFor(target: ResolvedTarget, options: RunEvaluationOptions): RetryPolicy {
  return {
    ...DEFAULT_RETRY_POLICY,
    ...options.retryPolicy,
    maxRetries: options.maxRetries ?? target.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
  };
}

export function buildRequest(
  { planned, options }: CaseContext,
  prompt: BuiltPrompt,
  attempt: number,
): ProviderRequest {
  const { evalCase } = planned;
  // Optional fields assigned one by one: spreads are slow, and batches build a request per case.
  const request: ProviderRequest = {
    evalCaseId: evalCase.id,
    attempt,
    question: prompt.question,
    chatPrompt: prompt.chatPrompt,
    guidelines: prompt.guidelines,
    guidelineFiles: prompt.guidelineFiles,
    inputFiles: prompt.inputFiles,
    evalDir: path.dirname(evalCase.filePath),
  };
  if (options.repeat !== undefined) request.repeat = options.repeat;
  if (evalCase.expectedOutcome !== undefined) request.expectedOutcome = evalCase.expectedOutcome;
  if (options.signal !== undefined) request.signal = options.signal;
  const metadata: Record<string, unknown> = { dataset: evalCase.dataset };
  if (evalCase.conversationId !== undefined) metadata.conversationId = evalCase.conversationId;
  request.metadata = metadata;
  return request;
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

// Targets whose reply warnings were reported, by run: the first reply of each is enough.
const warnedTargets = new WeakMap<RunEvaluationOptions, Set<string>>();

/**
 * Reports a reply's `warnings` (e.g. trace events dropped as invalid) through
 * `onWarning`, for the first reply with warnings of each target in a run.
 */
export function reportReplyWarnings(
  options: RunEvaluationOptions,
  planned: PlannedCase,
  response: ProviderResponse,
): void {
  if (response.warnings === undefined || response.warnings.length === 0 || !options.onWarning) {
    return;
  }
  let warned = warnedTargets.get(options);
  if (!warned) {
    warned = new Set();
    warnedTargets.set(options, warned);
  }
  const target = planned.target.name;
  if (warned.has(target)) return;
  warned.add(target);
  options.onWarning(
    `target "${target}", case "${planned.evalCase.id}": ${response.warnings.join('; ')} (warnings of this target's later replies are not shown)`,
  );
}

// The `warn` of each run's grading context, made once per run.
const graderWarnings = new WeakMap<RunEvaluationOptions, EvaluationContext['warn']>();

/**
 * The `warn` graders report through: `onWarning`, naming the case and its eval
 * file, for the first warning of each grader of an eval file in a run. One
 * function per run (a closure per case would be garbage for every case of a batch).
 */
function graderWarningsOf(options: RunEvaluationOptions): EvaluationContext['warn'] {
  const onWarning = options.onWarning;
  if (onWarning === undefined) return undefined;
  let warn = graderWarnings.get(options);
  if (warn === undefined) {
    const warned = new Set<string>();
    warn = (evalCase, grader, message) => {
      const key = `${evalCase.filePath}\u0000${grader}`;
      if (warned.has(key)) return;
      warned.add(key);
      onWarning(
        `case "${evalCase.id}" (${path.basename(evalCase.filePath)}): evaluator ${grader} ${message} (later warnings of this evaluator are not shown)`,
      );
    };
    graderWarnings.set(options, warn);
  }
  return warn;
}

// Judge-only providers started (and health-checked) before the first case, by run.
const startedJudgeProviders = new WeakMap<RunEvaluationOptions, Map<string, Provider>>();

/** Hands `judgeFor` a judge target's provider that was started with the run's targets. */
export function useStartedJudgeProvider(
  options: RunEvaluationOptions,
  targetName: string,
  provider: Provider,
): void {
  let started = startedJudgeProviders.get(options);
  if (!started) {
    started = new Map();
    startedJudgeProviders.set(options, started);
  }
  started.set(targetName, provider);
}

// Providers `judgeFor` created during a run, by run: `runEvaluation` closes them at the end.
const createdDuringRun = new WeakMap<RunEvaluationOptions, Provider[]>();

/** A provider for `target`, from the run's `createProvider` when it has one, else the registry. */
export function createProviderFor(
  target: ResolvedTarget,
  role: ProviderRole,
  options: RunEvaluationOptions,
): Provider {
  return options.createProvider
    ? options.createProvider(target, role, options.providerContext)
    : options.providerRegistry.create(target, options.providerContext);
}

function createLazily(target: ResolvedTarget, options: RunEvaluationOptions): Provider {
  const provider = createProviderFor(target, 'judge', options);
  const created = createdDuringRun.get(options) ?? [];
  created.push(provider);
  createdDuringRun.set(options, created);
  return provider;
}

/** The providers created after the run started (judges of run targets), to be closed with it. */
export function lazilyCreatedProviders(options: RunEvaluationOptions): readonly Provider[] {
  return createdDuringRun.get(options) ?? [];
}

/** The stand-in judge `planRun` makes under `--dry-run`. */
export function isDryRunJudge(target: ResolvedTarget): boolean {
  return target.provider === 'mock' && target.settings.response === DRY_RUN_JUDGE_REPLY;
}

// One judge per judge target and run, created on first use.
const judgesByRun = new WeakMap<RunEvaluationOptions, Map<string, Judge>>();

/** The judge of a planned case (its judge target's provider, with that target's retry policy). */
export function judgeFor(planned: PlannedCase, options: RunEvaluationOptions): Judge | undefined {
  const target = planned.judgeTarget;
  if (!target) return undefined;
  let judges = judgesByRun.get(options);
  if (!judges) {
    judges = new Map();
    judgesByRun.set(options, judges);
  }
  let judge = judges.get(target.name);
  if (!judge) {
    try {
      if (isDryRunJudge(target)) {
        judge = {
          targetName: target.name,
          dryRun: true,
          ask: () => Promise.reject(new EvaluatorError('a dry-run judge is not asked')),
        };
      } else {
        const provider =
          startedJudgeProviders.get(options)?.get(target.name) ?? createLazily(target, options);
        judge = createJudge(provider, retryPolicyFor(target, options), verboseLog(options));
      }
    } catch (error) {
      // Reported on each case that asks, as that evaluator's error.
      const failure = new EvaluatorError(
        `judge target "${target.name}" cannot be started: ${messageOf(error)}`,
      );
      judge = {
        targetName: target.name,
        ask: () => Promise.reject(failure),
      };
    }
    judges.set(target.name, judge);
  }
  return judge;
}

/** A case's view of a shared judge that adds up the tokens and cost of the calls made through it. */
function meteredJudge(shared: Judge): {
  judge: Judge;
  usage?: TokenUsage;
  costUsd?: number;
} {
  const meter: { judge: Judge; usage?: TokenUsage; costUsd?: number } = {
    judge: {
      ...shared,
      ask: async (request) => {
        const response = await shared.ask(request);
        const usage = addTokenUsage(meter.usage, response.usage);
        if (usage !== undefined) meter.usage = usage;
        if (response.costUsd !== undefined) meter.costUsd = (meter.costUsd ?? 0) + response.costUsd;
        return response;
      },
    },
  };
  return meter;
}

/** Grades an answer and builds the case's result. */
export async function gradeAnswer(
  context: CaseContext,
  prompt: BuiltPrompt,
  { response, trace, traceSummary, attempts, durationMs }: Answer,
): Promise<EvaluationResult> {
  const { planned, options } = context;
  const { evalCase } = planned;
  const shared = judgeFor(planned, options);
  const judge = shared && meteredJudge(shared);
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
      // Plain fields, not spreads: V8 builds objects with spreads slowly, and this is per case.
      evaluators: options.evaluatorRegistry,
      env: options.providerContext?.env,
      judge: judge?.judge,
      warn: graderWarningsOf(options),
    },
    options.evaluatorRegistry,
    { threshold: options.threshold ?? evalCase.threshold },
  );
  const result: EvaluationResult = {
    timestamp: new Date().toISOString(),
    evalId: evalCase.id,
    dataset: evalCase.dataset,
    evalFile: evalCase.filePath,
    target: planned.target.name,
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
  if (response.usage !== undefined) result.usage = response.usage;
  if (response.costUsd !== undefined) result.costUsd = response.costUsd;
  if (response.cached === true) result.cached = true;
  if (judge?.usage !== undefined) result.judgeUsage = judge.usage;
  if (judge?.costUsd !== undefined) result.judgeCostUsd = judge.costUsd;
  if (grade.error !== undefined) result.error = grade.error;
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
  outcome: Pick<Answer, 'trace' | 'traceSummary'> | { error: string },
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
  return 'error' in outcome
    ? { ...base, trace: null, traceSummary: null, error: outcome.error }
    : { ...base, trace: outcome.trace ?? null, traceSummary: outcome.traceSummary };
}

export function errorResult(
  { planned, started }: CaseContext,
  attempts: number,
  error: string,
): EvaluationResult {
  return {
    timestamp: new Date().toISOString(),
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
    traceSummary: null,
  };
}

/** The error of a case whose provider calls all failed (or that an interrupt stopped first). */
export function failureMessage(error: unknown, attempts: number, context?: CaseContext): string {
  if (attempts === 0 && error === undefined) {
    return 'the run was interrupted before the agent was called';
  }
  const refused = describeRetryAfterBeyondCap(error);
  if (refused !== undefined) {
    const workers =
      context === undefined ? undefined : workersAdvice(context.planned.target, context.options);
    return `${messageOf(error)}; ${refused} (hint: run the case again once the service takes requests again${workers === undefined ? '' : `; to send fewer at once, ${workers}`})`;
  }
  const hint = context === undefined ? undefined : rateLimitHint(error, context);
  return hint === undefined ? messageOf(error) : `${messageOf(error)} (hint: ${hint})`;
}

/** How to send fewer requests at once, naming the setting that decides: `lower --workers (now 8)`. */
function workersAdvice(target: ResolvedTarget, options: RunEvaluationOptions): string {
  const names = options.optionNames ?? LIBRARY_OPTION_NAMES;
  return options.workers !== undefined
    ? `lower ${names.workers} (now ${options.workers})`
    : `set a lower \`workers\` on target "${target.name}"${target.workers === undefined ? '' : ` (now ${target.workers})`}`;
}

/** Where `--verbose` lines go (the providers' `log`, else stderr); undefined without `--verbose`. */
function verboseLog(options: RunEvaluationOptions): ((line: string) => void) | undefined {
  const context = options.providerContext;
  if (context?.verbose !== true) return undefined;
  return context.log ?? ((line: string) => process.stderr.write(`${line}\n`));
}

/** `onWait` for `withRetries` that writes `retryWaitLine`s under `--verbose`, else undefined. */
export function verboseRetryWaits(
  options: RunEvaluationOptions,
  providerId: string,
  label: (failedAttempt: number) => string,
): WithRetriesOptions['onWait'] {
  const log = verboseLog(options);
  if (log === undefined) return undefined;
  return (wait) => log(retryWaitLine(providerId, label(wait.failed), wait));
}

/**
 * After the last retry of an HTTP 429: what lets the next run through, naming
 * the setting that decides (the run's option when given, else the target's).
 */
function rateLimitHint(error: unknown, { planned, options }: CaseContext): string | undefined {
  if (!isProviderError(error) || error.hint || error.details?.status !== 429) return undefined;
  const names = options.optionNames ?? LIBRARY_OPTION_NAMES;
  const { target } = planned;
  const workers = workersAdvice(target, options);
  const retries = retryPolicyFor(target, options).maxRetries;
  const more =
    options.maxRetries !== undefined
      ? `raise ${names.maxRetries} (now ${retries})`
      : `raise \`max_retries\` on target "${target.name}" (now ${retries})`;
  return `the service is limiting the request rate: send fewer requests at once (${workers}), or retry more (${more}); each retry waits longer`;
}

export function messageOf(error: unknown): string {
  if (isAgentvError(error) && error.hint) return `${error.message} (hint: ${error.hint})`;
  return error instanceof Error ? error.message : String(error);
}
