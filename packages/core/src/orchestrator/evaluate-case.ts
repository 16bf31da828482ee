import { buildPrompt } from '../prompt/build-prompt.js';
import { callLabel } from '../provider/call-label.js';
import type { Provider } from '../provider/provider.js';
import { withRetries } from '../retry/retry-policy.js';
import type { CaseContext } from './case-context.js';
import { retryPolicyFor, verboseRetryWaits } from './case-retries.js';
import {
  answerOf,
  attemptRecord,
  buildRequest,
  errorResult,
  gradeAnswer,
  reportReplyWarnings,
} from './case-steps.js';
import type { EvaluationResult } from './evaluation-result.js';
import { failureMessage, messageOf } from './failure-message.js';
import type { PlannedCase } from './plan-run.js';
import type { RunState } from './run-state.js';

/**
 * Answers one case with `provider.invoke`, retrying failed calls per the
 * retry policy, and grades the answer. Never throws: failures become the
 * result's `error`.
 */
export async function evaluateCase(
  planned: PlannedCase,
  provider: Provider,
  run: RunState,
): Promise<EvaluationResult> {
  const { options } = run;
  const context: CaseContext = { planned, run, started: Date.now() };
  let prompt: Awaited<ReturnType<typeof buildPrompt>>;
  try {
    prompt = await buildPrompt(planned.evalCase);
  } catch (error) {
    return errorResult(context, 0, `could not build the prompt: ${messageOf(error)}`);
  }

  // Outside the try: a failing hook is the caller's bug, not this case's prompt.
  await options.onPrompt?.(planned.evalCase, prompt, planned.target);
  let callStarted = 0;
  let firstCallStarted: number | undefined;
  const outcome = await withRetries(
    (attempt) => {
      callStarted = Date.now();
      firstCallStarted ??= callStarted;
      return provider.invoke(buildRequest(context, prompt, attempt));
    },
    retryPolicyFor(planned.target, options),
    {
      signal: options.signal,
      onWait: verboseRetryWaits(options, provider.id, (failed) =>
        callLabel({ evalCaseId: planned.evalCase.id, attempt: failed - 1 }),
      ),
      onFailure: (error, attempt) =>
        options.onAttempt?.(
          attemptRecord(
            planned,
            attempt,
            Date.now() - callStarted,
            { error: messageOf(error) },
            options.repeat,
          ),
        ),
    },
  );
  if (!outcome.ok) {
    return errorResult(
      context,
      outcome.attempts,
      failureMessage(outcome.error, outcome.attempts, context),
    );
  }
  const ended = Date.now();
  const answer = answerOf(outcome.value, outcome.attempts, {
    firstStarted: firstCallStarted ?? callStarted,
    lastStarted: callStarted,
    ended,
  });
  reportReplyWarnings(run, planned, outcome.value);
  await options.onAttempt?.(
    attemptRecord(planned, answer.attempts, ended - callStarted, answer, options.repeat),
  );
  return gradeAnswer(context, prompt, answer);
}
