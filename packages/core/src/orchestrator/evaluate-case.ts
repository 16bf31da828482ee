import { classifyFailure } from '../errors/failure-class.js';
import { ProviderError } from '../errors/provider-error.js';
import type { CaseBudget } from '../eval-file/eval-case.js';
import { buildPrompt } from '../prompt/build-prompt.js';
import { callLabel } from '../provider/call-label.js';
import type { Provider } from '../provider/provider.js';
import { withRetries } from '../retry/retry-policy.js';
import { isWorkspaceSetupError } from '../workspace/workspace-errors.js';
import { budgetOverrun, CaseBudgetGuard } from './case-budget.js';
import type { CaseContext } from './case-context.js';
import { retryPolicyFor, verboseRetryWaits } from './case-retries.js';
import {
  answerOf,
  attemptRecord,
  buildRequest,
  errorResult,
  gradeAnswer,
  overBudget,
  reportReplyWarnings,
  stoppedOverBudget,
} from './case-steps.js';
import {
  changesIfKnown,
  type HeldWorkspace,
  holdWorkspace,
  workspaceForGraders,
} from './case-workspace.js';
import { evaluateConversation } from './evaluate-conversation.js';
import type { EvaluationResult } from './evaluation-result.js';
import { failureMessage, messageOf } from './failure-message.js';
import { invokeTarget } from './invoke-target.js';
import type { PlannedCase } from './plan-run.js';
import type { RunState } from './run-state.js';

/**
 * Answers one case with `provider.invoke`, retrying failed calls per the
 * retry policy, and grades the answer. A case with a workspace takes it before
 * the first call and gives it back once graded (see `holdWorkspace`). Throws
 * only a `WorkspaceSetupError`, which stops the run; other failures become the
 * result's `error`.
 */
export async function evaluateCase(
  planned: PlannedCase,
  provider: Provider,
  run: RunState,
): Promise<EvaluationResult> {
  if (planned.evalCase.conversation !== undefined)
    return evaluateConversation(planned, provider, run);
  const { options } = run;
  const context: CaseContext = { planned, run, started: Date.now() };
  let prompt: Awaited<ReturnType<typeof buildPrompt>>;
  try {
    prompt = await buildPrompt(planned.evalCase);
  } catch (error) {
    return errorResult(context, 0, `could not build the prompt: ${messageOf(error)}`, 'infra');
  }

  // Outside the try: a failing hook is the caller's bug, not this case's prompt.
  await options.onPrompt?.(planned.evalCase, prompt, planned.target);
  // Only cases with a `workspace:` block do any workspace work.
  let held: HeldWorkspace | undefined;
  if (planned.evalCase.workspace !== undefined) {
    const taken = await holdWorkspace(context, prompt);
    if ('error' in taken) return taken.error;
    held = taken;
  }
  // A workspace that could not be renewed before a retry: the case's error, not a call to retry.
  let renewFailed: unknown;
  const budget = planned.evalCase.budget;
  // Only a case with a budget gets a signal of its own: the others share the run's.
  const guard = budget === undefined ? undefined : new CaseBudgetGuard(budget, options.signal);
  let callStarted = 0;
  let firstCallStarted: number | undefined;
  const outcome = await withRetries(
    async (attempt) => {
      if (held !== undefined && attempt > 0) {
        try {
          await held.renew();
        } catch (error) {
          renewFailed = error;
          throw new ProviderError(messageOf(error), { retryable: false });
        }
      }
      return invokeTarget(
        provider,
        buildRequest(context, prompt, attempt, held, guard),
        planned,
        run,
        guard?.signal ?? options.signal,
        () => {
          callStarted = Date.now();
          firstCallStarted ??= callStarted;
        },
      );
    },
    retryPolicyFor(planned.target, options),
    {
      signal: guard?.signal ?? options.signal,
      onWait: verboseRetryWaits(options, provider.id, (failed) =>
        callLabel({ evalCaseId: planned.evalCase.id, attempt: failed - 1 }),
      ),
      onFailure: (error, attempt) =>
        options.onAttempt?.(
          attemptRecord(planned, attempt, Date.now() - callStarted, { error }, options.repeat),
        ),
    },
  );
  guard?.dispose();
  if (renewFailed !== undefined && isWorkspaceSetupError(renewFailed)) throw renewFailed;
  if (!outcome.ok && guard?.overrun !== undefined) {
    const stopped = stoppedOverBudget(context, outcome.attempts, guard.overrun, {
      ...guard.spent(),
      error: outcome.error,
    });
    return held === undefined ? stopped : held.finish(stopped, await changesIfKnown(held));
  }
  if (!outcome.ok) {
    const failed = errorResult(
      context,
      outcome.attempts,
      renewFailed === undefined
        ? failureMessage(outcome.error, outcome.attempts, context)
        : messageOf(renewFailed),
      renewFailed === undefined ? classifyFailure(outcome.error) : 'infra',
    );
    return held === undefined ? failed : held.finish(failed, await changesIfKnown(held));
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
  if (held === undefined) return checkBudget(await gradeAnswer(context, prompt, answer), budget);
  const workspace = await workspaceForGraders(context, held, answer.attempts);
  if ('error' in workspace) return workspace.error;
  const graded = checkBudget(await gradeAnswer(context, prompt, answer, workspace), budget);
  return held.finish(graded, workspace.changes);
}

/** Fails a graded result that crossed its case's budget, measured after the fact. */
function checkBudget(result: EvaluationResult, budget: CaseBudget | undefined): EvaluationResult {
  const overrun = budgetOverrun(budget, result);
  return overrun === undefined ? result : overBudget(result, overrun);
}
