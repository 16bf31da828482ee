import { ProviderError } from '../errors/provider-error.js';
import { type BuiltPrompt, buildPrompt } from '../prompt/build-prompt.js';
import type { Provider } from '../provider/provider.js';
import type { ProviderResponse } from '../provider/provider-response.js';
import {
  answerOf,
  attemptRecord,
  buildRequest,
  type CaseContext,
  errorResult,
  failureMessage,
  gradeAnswer,
  messageOf,
  retryPolicyFor,
} from './case-steps.js';
import type { EvaluationResult } from './evaluation-result.js';
import type { PlannedCase } from './plan-run.js';
import { withRetries } from './retry-policy.js';
import type { RunEvaluationOptions } from './run-options.js';

/** Longest batch error copied into each case's result. */
const CASE_ERROR_CHARS = 1000;

interface Prepared {
  context: CaseContext;
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
    const context: CaseContext = { planned, options, started };
    try {
      prepared.push({ context, prompt: await buildPrompt(planned.evalCase) });
    } catch (error) {
      await emit(errorResult(context, 0, `could not build the prompt: ${messageOf(error)}`));
    }
  }
  if (prepared.length === 0) return;
  // Outside the try above: a failing hook is the caller's bug, not a case's prompt.
  for (const { context, prompt } of prepared) {
    await options.onPrompt?.(context.planned.evalCase, prompt, context.planned.target);
  }

  let callStarted = 0;
  const outcome = await withRetries(
    (attempt) => {
      callStarted = Date.now();
      return callBatch(provider, prepared, attempt);
    },
    retryPolicyFor(prepared[0]!.context.planned.target, prepared[0]!.context.options),
    {
      signal: options.signal,
      onFailure: async (error, attempt) => {
        const durationMs = Date.now() - callStarted;
        for (const { context } of prepared) {
          await options.onAttempt?.(
            attemptRecord(context.planned, attempt, durationMs, { error: messageOf(error) }),
          );
        }
      },
    },
  );
  if (outcome.ok) {
    const durationMs = Date.now() - callStarted;
    const responses = outcome.value;
    // A few graders take the next case in turn: no promise or closure per case is made up
    // front, and each case's prompt and response are dropped as soon as it is graded.
    let next = 0;
    const grader = async () => {
      while (next < prepared.length) {
        const index = next++;
        const { context, prompt } = prepared[index]!;
        const answer = answerOf(responses[index]!, outcome.attempts);
        prepared[index] = undefined as never;
        responses[index] = undefined as never;
        await options.onAttempt?.(
          attemptRecord(context.planned, answer.attempts, durationMs, answer),
        );
        await emit(await gradeAnswer(context, prompt, answer));
      }
    };
    const graders = Math.max(1, Math.min(gradeConcurrency, prepared.length));
    await Promise.all(Array.from({ length: graders }, grader));
    return;
  }
  const lastError = failureMessage(outcome.error, outcome.attempts);
  let error =
    prepared.length === 1 ? lastError : `batch of ${prepared.length} cases failed: ${lastError}`;
  if (error.length > CASE_ERROR_CHARS) {
    // Every case carries the error; a long one (thousands of missing ids) would make the
    // result file grow with the square of the batch. The whole text is printed once.
    options.onWarning?.(error);
    error = `${error.slice(0, CASE_ERROR_CHARS)}… (cut here; the whole batch error was printed once as a warning)`;
  }
  for (const { context } of prepared) {
    await emit(errorResult(context, outcome.attempts, error));
  }
}

async function callBatch(
  provider: Provider,
  prepared: readonly Prepared[],
  attempt: number,
): Promise<ProviderResponse[]> {
  const requests = prepared.map(({ context, prompt }) => buildRequest(context, prompt, attempt));
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
