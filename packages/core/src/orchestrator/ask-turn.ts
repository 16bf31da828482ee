import { classifyFailure, type FailureClass } from '../errors/failure-class.js';
import type { BuiltPrompt } from '../prompt/build-prompt.js';
import { callLabel } from '../provider/call-label.js';
import type { ConversationRequest } from '../provider/conversation-request.js';
import type { Provider } from '../provider/provider.js';
import { withRetries } from '../retry/retry-policy.js';
import type { CaseBudgetGuard } from './case-budget.js';
import type { CaseContext } from './case-context.js';
import { retryPolicyFor, verboseRetryWaits } from './case-retries.js';
import {
  type Answer,
  answerOf,
  attemptRecord,
  buildRequest,
  reportReplyWarnings,
} from './case-steps.js';
import type { HeldWorkspace } from './case-workspace.js';
import { failureMessage } from './failure-message.js';
import { invokeTarget } from './invoke-target.js';

/**
 * Asks the agent one turn of a conversation, retrying failed calls per the
 * retry policy (the workspace is kept as it is between attempts: it holds the
 * earlier turns' work). Each attempt is reported through `onAttempt`. With a
 * `guard` (the case has a budget) the turn's calls get its signal and report their usage to it.
 */
export async function askTurn(
  context: CaseContext,
  provider: Provider,
  prompt: BuiltPrompt,
  conversation: ConversationRequest,
  held: HeldWorkspace | undefined,
  guard?: CaseBudgetGuard,
): Promise<Answer | { error: string; attempts: number; failureClass: FailureClass }> {
  const { planned, run } = context;
  const { options } = run;
  const signal = guard?.signal ?? options.signal;
  let callStarted = 0;
  let firstStarted: number | undefined;
  const outcome = await withRetries(
    async (attempt) => {
      callStarted = Date.now();
      firstStarted ??= callStarted;
      const request = buildRequest(context, prompt, attempt, held, guard);
      request.conversation = conversation;
      request.metadata = { ...request.metadata, conversationId: conversation.id };
      // Rate limits and OTLP intake apply to each turn as to a single call.
      return invokeTarget(provider, request, planned, run, signal);
    },
    retryPolicyFor(planned.target, options),
    {
      signal,
      onWait: verboseRetryWaits(options, provider.id, (failed) =>
        callLabel({ evalCaseId: planned.evalCase.id, attempt: failed - 1 }),
      ),
      onFailure: (error, attempt) =>
        options.onAttempt?.(
          attemptRecord(planned, attempt, Date.now() - callStarted, { error }, options.repeat),
        ),
    },
  );
  if (!outcome.ok) {
    return {
      error: failureMessage(outcome.error, outcome.attempts, context),
      attempts: outcome.attempts,
      failureClass: classifyFailure(outcome.error),
    };
  }
  const ended = Date.now();
  const answer = answerOf(outcome.value, outcome.attempts, {
    firstStarted: firstStarted ?? callStarted,
    lastStarted: callStarted,
    ended,
  });
  reportReplyWarnings(run, planned, outcome.value);
  await options.onAttempt?.(
    attemptRecord(planned, answer.attempts, ended - callStarted, answer, options.repeat),
  );
  return answer;
}
