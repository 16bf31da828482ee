import { normalizeTrace } from '../trace/normalize-trace.js';
import type { Provider } from '../provider/provider.js';
import type { ProviderResponse } from '../provider/provider-response.js';
import { buildPrompt } from '../prompt/index.js';
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

/**
 * Answers one case with `provider.invoke`, retrying failed calls per the
 * retry policy, and grades the answer. Never throws: failures become the
 * result's `error`.
 */
export async function evaluateCase(
  planned: PlannedCase,
  provider: Provider,
  options: RunEvaluationOptions,
): Promise<EvaluationResult> {
  const { evalCase, target } = planned;
  const started = Date.now();
  let prompt: Awaited<ReturnType<typeof buildPrompt>>;
  try {
    prompt = await buildPrompt(evalCase);
  } catch (error) {
    return errorResult(
      resultBase(planned),
      started,
      0,
      `could not build the prompt: ${messageOf(error)}`,
    );
  }

  // Outside the try: a failing hook is the caller's bug, not this case's prompt.
  await options.onPrompt?.(evalCase, prompt, target);
  const policy = retryPolicyFor(planned, options);
  let lastError = 'the run was interrupted before the agent was called';
  let attempts = 0;
  for (let attempt = 0; attempt <= policy.maxRetries; attempt++) {
    if (attempt > 0) await sleep(retryDelayMs(attempt, policy), options.signal);
    if (options.signal?.aborted) break;
    const callStarted = Date.now();
    attempts = attempt + 1;
    let response: ProviderResponse;
    try {
      response = await provider.invoke(buildRequest(evalCase, prompt, attempt, options.signal));
    } catch (error) {
      lastError = messageOf(error);
      await options.onAttempt?.(
        attemptRecord(planned, attempts, Date.now() - callStarted, { error: lastError }),
      );
      if (!isRetryable(error)) break;
      continue;
    }
    const trace = normalizeTrace(response);
    const traceSummary = trace ? options.summarizeTrace(trace) : null;
    await options.onAttempt?.(
      attemptRecord(planned, attempts, Date.now() - callStarted, { trace, traceSummary }),
    );
    return gradeAnswer(planned, prompt, response, trace, traceSummary, attempts, started, options);
  }
  return errorResult(resultBase(planned), started, attempts, lastError);
}
