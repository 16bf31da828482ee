import { callLabel } from '../provider/call-label.js';
import type { Provider } from '../provider/provider.js';
import {
  describeRetryAfterBeyondCap,
  type RetryPolicy,
  withRetries,
} from '../retry/retry-policy.js';
import { retryWaitLine } from '../retry/retry-wait-line.js';
import type { Judge } from './evaluator.js';
import { EvaluatorError } from './evaluator-error.js';

/**
 * Wraps the judge target's provider; `policy` is the retry policy of that target.
 * A retry counts on from the question's own `attempt`. With `log` (`--verbose`),
 * each wait before another attempt is logged as the run's own calls are.
 */
export function createJudge(
  provider: Provider,
  policy: RetryPolicy,
  log?: (line: string) => void,
): Judge {
  return {
    targetName: provider.targetName,
    async ask(request) {
      const label = (failed: number) =>
        callLabel({ evalCaseId: request.evalCaseId, attempt: request.attempt + failed - 1 });
      const outcome = await withRetries(
        (retry) =>
          provider.invoke({
            evalCaseId: request.evalCaseId,
            attempt: request.attempt + retry,
            ...(request.refresh === true ? { refresh: true } : {}),
            question: request.question,
            chatPrompt: request.chatPrompt ?? [{ role: 'user', content: request.question }],
            guidelines: '',
            guidelineFiles: [],
            inputFiles: [],
            ...(request.evalDir === undefined ? {} : { evalDir: request.evalDir }),
            ...(request.signal === undefined ? {} : { signal: request.signal }),
            metadata: { purpose: 'judge', ...request.metadata },
          }),
        policy,
        {
          ...(request.signal === undefined ? {} : { signal: request.signal }),
          ...(log === undefined
            ? {}
            : { onWait: (wait) => log(retryWaitLine(provider.id, label(wait.failed), wait)) }),
        },
      );
      if (outcome.ok) return outcome.value;
      const lastError = outcome.error;
      const refused = describeRetryAfterBeyondCap(lastError);
      const reason = `${lastError instanceof Error ? lastError.message : String(lastError)}${refused === undefined ? '' : `; ${refused}`}`;
      const hint =
        lastError instanceof Error && 'hint' in lastError && typeof lastError.hint === 'string'
          ? lastError.hint
          : `check judge target "${provider.targetName}" in the targets file`;
      throw new EvaluatorError(
        outcome.attempts === 0
          ? `judge target "${provider.targetName}" was not asked: the run was interrupted`
          : `judge target "${provider.targetName}" failed: ${reason}`,
        { hint, cause: lastError },
      );
    },
  };
}
