import { AgentvError } from '../errors/agentv-error.js';
import type { EvalCase } from '../eval-file/eval-case.js';
import type { EvaluatorRegistry } from '../evaluators/evaluator-registry.js';
import { gradeCase } from '../evaluators/grade-case.js';
import { buildPrompt, referenceAnswer } from '../prompt/index.js';
import type { BuiltPrompt } from '../prompt/index.js';
import type { Provider } from '../provider/provider.js';
import type { ProviderContext } from '../provider/provider-factory.js';
import type { ProviderRegistry } from '../provider/provider-registry.js';
import type { ProviderRequest } from '../provider/provider-request.js';
import type { ProviderResponse } from '../provider/provider-response.js';
import type { ResolvedTarget } from '../targets/resolved-target.js';
import { normalizeTrace } from '../trace/normalize-trace.js';
import type { TraceSummarizer } from '../trace/trace-summary.js';
import type { AttemptRecord, EvaluationResult } from './evaluation-result.js';
import type { PlannedCase, RunPlan } from './plan-run.js';
import {
  DEFAULT_RETRY_POLICY,
  isRetryable,
  type RetryPolicy,
  retryDelayMs,
} from './retry-policy.js';
import { createWorkerPool } from './worker-pool.js';

export const DEFAULT_WORKERS = 4;

export interface RunEvaluationOptions {
  plan: RunPlan;
  providerRegistry: ProviderRegistry;
  evaluatorRegistry: EvaluatorRegistry;
  /** Computes `trace_summary`; comes from `@agentv/results`. */
  summarizeTrace: TraceSummarizer;
  /** `--workers`; else the largest `workers` of the used targets; else 4. */
  workers?: number;
  /** `--max-retries`; a target's `max_retries` wins; default 2. */
  maxRetries?: number;
  /** Backoff timing; tests shorten it. */
  retryPolicy?: Partial<Omit<RetryPolicy, 'maxRetries'>>;
  /** `--threshold`; overrides the eval file's `execution.threshold`. */
  threshold?: number;
  providerContext?: ProviderContext;
  /** Creates the provider for a target instead of the registry (`--dry-run` uses the mock). */
  createProvider?: (target: ResolvedTarget) => Provider;
  /** Stops scheduling cases and aborts running ones. */
  signal?: AbortSignal;
  onCaseStart?: (evalCase: EvalCase, target: ResolvedTarget) => void;
  /** Called once per provider call, as it ends. */
  onAttempt?: (record: AttemptRecord) => void | Promise<void>;
  /** Called once per finished case, as it finishes; awaited before the case's slot is freed. */
  onResult?: (result: EvaluationResult) => void | Promise<void>;
}

export interface RunOutcome {
  /** Results of every finished case, in the order they finished. */
  results: EvaluationResult[];
  /** True when the signal stopped the run before every case finished. */
  interrupted: boolean;
}

/**
 * Runs every planned case on a worker pool, grades the answers and reports
 * each result as it finishes. A failing case never stops the others: provider
 * and evaluator failures become that case's `error`. Throws only before any
 * case runs (a provider cannot be created or fails its health check).
 */
export async function runEvaluation(options: RunEvaluationOptions): Promise<RunOutcome> {
  const providers = await startProviders(options);
  const pool = createWorkerPool(poolSize(options), perTargetLimits(options));
  const results: EvaluationResult[] = [];
  const runCase = async (planned: PlannedCase) => {
    if (options.signal?.aborted) return;
    options.onCaseStart?.(planned.evalCase, planned.target);
    const provider = providers.get(planned.target.name)!;
    const result = await evaluateCase(planned, provider, options);
    // A case cut short by an interrupt did not finish; it is left out rather than recorded as an error.
    if (options.signal?.aborted && result.error !== undefined) return;
    results.push(result);
    await options.onResult?.(result);
  };

  await Promise.all(
    options.plan.cases.map((planned) => pool.run(() => runCase(planned), planned.target.name)),
  );
  return {
    results,
    interrupted: options.signal?.aborted === true && results.length < options.plan.cases.length,
  };
}

async function startProviders(options: RunEvaluationOptions): Promise<Map<string, Provider>> {
  const providers = new Map<string, Provider>();
  for (const target of options.plan.targets) {
    const provider = options.createProvider
      ? options.createProvider(target)
      : options.providerRegistry.create(target, options.providerContext);
    providers.set(target.name, provider);
  }
  // Health checks run once per provider, all before the first case.
  for (const provider of providers.values()) {
    if (!provider.healthcheck) continue;
    try {
      await provider.healthcheck();
    } catch (error) {
      throw new AgentvError(
        `health check of target "${provider.targetName}" failed: ${messageOf(error)}`,
        {
          hint: 'start the agent or service the target needs, or fix its healthcheck settings',
          cause: error,
        },
      );
    }
  }
  return providers;
}

function poolSize(options: RunEvaluationOptions): number {
  if (options.workers !== undefined) return options.workers;
  const fromTargets = options.plan.targets
    .map((target) => target.workers)
    .filter((workers): workers is number => workers !== undefined);
  return fromTargets.length > 0 ? Math.max(...fromTargets) : DEFAULT_WORKERS;
}

function perTargetLimits(options: RunEvaluationOptions): Map<string, number> {
  const limits = new Map<string, number>();
  if (options.workers !== undefined) return limits;
  for (const target of options.plan.targets) {
    if (target.workers !== undefined) limits.set(target.name, target.workers);
  }
  return limits;
}

async function evaluateCase(
  planned: PlannedCase,
  provider: Provider,
  options: RunEvaluationOptions,
): Promise<EvaluationResult> {
  const { evalCase, target } = planned;
  const started = Date.now();
  const base = {
    evalId: evalCase.id,
    dataset: evalCase.dataset,
    evalFile: evalCase.filePath,
    target: target.name,
    ...(evalCase.conversationId === undefined ? {} : { conversationId: evalCase.conversationId }),
  };

  let prompt: BuiltPrompt;
  try {
    prompt = await buildPrompt(evalCase);
  } catch (error) {
    return errorResult(base, started, 0, `could not build the prompt: ${messageOf(error)}`);
  }

  const answered = await invokeWithRetries(evalCase, target, provider, prompt, options);
  if ('error' in answered) {
    return errorResult(base, started, answered.attempts, answered.error);
  }
  const { response, trace, attempts } = answered;
  const traceSummary = trace ? options.summarizeTrace(trace) : null;
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
    ...base,
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
    ...(grade.error === undefined ? {} : { error: grade.error }),
    traceSummary,
    ...(trace === undefined ? {} : { trace }),
    ...(response.outputMessages === undefined ? {} : { outputMessages: response.outputMessages }),
  };
}

type Answered =
  | { response: ProviderResponse; trace: ReturnType<typeof normalizeTrace>; attempts: number }
  | { error: string; attempts: number };

async function invokeWithRetries(
  evalCase: EvalCase,
  target: ResolvedTarget,
  provider: Provider,
  prompt: BuiltPrompt,
  options: RunEvaluationOptions,
): Promise<Answered> {
  const policy: RetryPolicy = {
    ...DEFAULT_RETRY_POLICY,
    ...options.retryPolicy,
    maxRetries: target.maxRetries ?? options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
  };
  let lastError = 'no attempt was made';
  for (let attempt = 0; attempt <= policy.maxRetries; attempt++) {
    if (attempt > 0) {
      await sleep(retryDelayMs(attempt, policy), options.signal);
    }
    if (options.signal?.aborted) break;
    const request: ProviderRequest = {
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
      signal: options.signal,
      metadata: {
        dataset: evalCase.dataset,
        evalFile: evalCase.filePath,
        ...(evalCase.conversationId === undefined
          ? {}
          : { conversationId: evalCase.conversationId }),
      },
    };
    const started = Date.now();
    try {
      const response = await provider.invoke(request);
      const trace = normalizeTrace(response);
      await options.onAttempt?.({
        evalId: evalCase.id,
        attempt: attempt + 1,
        target: target.name,
        durationMs: Date.now() - started,
        trace: trace ?? null,
        traceSummary: trace ? options.summarizeTrace(trace) : null,
      });
      return { response, trace, attempts: attempt + 1 };
    } catch (error) {
      lastError = messageOf(error);
      await options.onAttempt?.({
        evalId: evalCase.id,
        attempt: attempt + 1,
        target: target.name,
        durationMs: Date.now() - started,
        trace: null,
        traceSummary: null,
        error: lastError,
      });
      if (!isRetryable(error)) return { error: lastError, attempts: attempt + 1 };
      if (attempt === policy.maxRetries) return { error: lastError, attempts: attempt + 1 };
    }
  }
  return { error: lastError, attempts: 0 };
}

function errorResult(
  base: Pick<EvaluationResult, 'evalId' | 'dataset' | 'evalFile' | 'target' | 'conversationId'>,
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

function messageOf(error: unknown): string {
  if (error instanceof AgentvError && error.hint) return `${error.message} (hint: ${error.hint})`;
  return error instanceof Error ? error.message : String(error);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
