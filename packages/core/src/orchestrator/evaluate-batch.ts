import { ProviderError } from '../errors/provider-error.js';
import { type BuiltPrompt, buildPrompt } from '../prompt/index.js';
import type { Provider } from '../provider/provider.js';
import type { ProviderResponse } from '../provider/provider-response.js';
import { normalizeTrace } from '../trace/normalize-trace.js';
import {
  attemptRecord,
  buildRequest,
  errorResult,
  gradeAnswer,
  messageOf,
  resultBase,
  retryPolicyFor,
} from './case-steps.js';
import type { EvaluationResult } from './evaluation-result.js';
import type { PlannedCase } from './plan-run.js';
import { isRetryable, retryDelayMs } from './retry-policy.js';
import { sleep } from '../util/sleep.js';
import type { RunEvaluationOptions } from './run-evaluation.js';
import { createWorkerPool } from './worker-pool.js';

/** Longest batch error copied into each case's result. */
const CASE_ERROR_CHARS = 1000;

interface Prepared {
  planned: PlannedCase;
  prompt: BuiltPrompt;
}

/**
 * Answers a chunk of cases with one `provider.invokeBatch` call, retrying the
 * whole batch per the retry policy, then grades every answer (at most
 * `gradeConcurrency` at once) and emits each result. When the batch still
 * fails, every case in it gets an error result carrying the batch error —
 * there is no per-case fallback. Never throws.
 */
export async function evaluateBatch(
  chunk: readonly PlannedCase[],
  provider: Provider,
  options: RunEvaluationOptions,
  gradeConcurrency: number,
  emit: (result: EvaluationResult) => Promise<void>,
): Promise<void> {
  const started = Date.now();
  const prepared: Prepared[] = [];
  for (const planned of chunk) {
    try {
      prepared.push({ planned, prompt: await buildPrompt(planned.evalCase) });
    } catch (error) {
      await emit(
        errorResult(
          resultBase(planned),
          started,
          0,
          `could not build the prompt: ${messageOf(error)}`,
        ),
      );
    }
  }
  if (prepared.length === 0) return;
  // Outside the try above: a failing hook is the caller's bug, not a case's prompt.
  for (const { planned, prompt } of prepared) {
    await options.onPrompt?.(planned.evalCase, prompt, planned.target);
  }

  const policy = retryPolicyFor(prepared[0]!.planned, options);
  let lastError = 'the run was interrupted before the agent was called';
  let attempts = 0;
  for (let attempt = 0; attempt <= policy.maxRetries; attempt++) {
    if (attempt > 0) await sleep(retryDelayMs(attempt, policy), options.signal);
    if (options.signal?.aborted) break;
    attempts = attempt + 1;
    const callStarted = Date.now();
    let responses: ProviderResponse[];
    try {
      responses = await callBatch(provider, prepared, attempt, options.signal);
    } catch (error) {
      lastError = messageOf(error);
      for (const { planned } of prepared) {
        await options.onAttempt?.(
          attemptRecord(planned, attempts, Date.now() - callStarted, { error: lastError }),
        );
      }
      if (!isRetryable(error)) break;
      continue;
    }
    const durationMs = Date.now() - callStarted;
    const pool = createWorkerPool(gradeConcurrency);
    await Promise.all(
      prepared.map(({ planned, prompt }, index) =>
        pool.run(async () => {
          const response = responses[index]!;
          const trace = normalizeTrace(response);
          const traceSummary = trace ? options.summarizeTrace(trace) : null;
          await options.onAttempt?.(
            attemptRecord(planned, attempts, durationMs, { trace, traceSummary }),
          );
          await emit(
            await gradeAnswer(
              planned,
              prompt,
              response,
              trace,
              traceSummary,
              attempts,
              started,
              options,
            ),
          );
        }),
      ),
    );
    return;
  }
  let error =
    prepared.length === 1 ? lastError : `batch of ${prepared.length} cases failed: ${lastError}`;
  if (error.length > CASE_ERROR_CHARS) {
    // Every case carries the error; a long one (thousands of missing ids) would make the
    // result file grow with the square of the batch. The whole text is printed once.
    options.onWarning?.(error);
    error = `${error.slice(0, CASE_ERROR_CHARS)}… (cut here; the whole batch error was printed once as a warning)`;
  }
  for (const { planned } of prepared) {
    await emit(errorResult(resultBase(planned), started, attempts, error));
  }
}

async function callBatch(
  provider: Provider,
  prepared: readonly Prepared[],
  attempt: number,
  signal: AbortSignal | undefined,
): Promise<ProviderResponse[]> {
  const requests = prepared.map(({ planned, prompt }) =>
    buildRequest(planned.evalCase, prompt, attempt, signal),
  );
  const responses = await provider.invokeBatch!(requests);
  if (responses.length !== requests.length) {
    // A provider bug, not something a retry fixes.
    throw new ProviderError(
      `provider "${provider.id}" returned ${responses.length} responses for a batch of ${requests.length} cases`,
      { retryable: false },
    );
  }
  return responses;
}
