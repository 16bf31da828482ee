import { isAgentvError } from '../errors/agentv-error.js';
import { isProviderError } from '../errors/provider-error.js';
import { LIBRARY_OPTION_NAMES } from '../project/option-names.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import { describeRetryAfterBeyondCap } from '../retry/retry-policy.js';
import type { CaseContext } from './case-context.js';
import { retryPolicyFor } from './case-retries.js';
import type { RunEvaluationOptions } from './run-options.js';

/** The error of a case whose provider calls all failed (or that an interrupt stopped first). */
export function failureMessage(error: unknown, attempts: number, context?: CaseContext): string {
  if (attempts === 0 && error === undefined) {
    return 'the run was interrupted before the agent was called';
  }
  const refused = describeRetryAfterBeyondCap(error);
  if (refused !== undefined) {
    const workers =
      context === undefined
        ? undefined
        : workersAdvice(context.planned.target, context.run.options);
    return `${messageOf(error)}; ${refused} (hint: run the case again once the service takes requests again${workers === undefined ? '' : `; to send fewer at once, ${workers}`})`;
  }
  const hint = context === undefined ? undefined : rateLimitHint(error, context);
  return hint === undefined ? messageOf(error) : `${messageOf(error)} (hint: ${hint})`;
}

export function messageOf(error: unknown): string {
  if (isAgentvError(error) && error.hint) return `${error.message} (hint: ${error.hint})`;
  return error instanceof Error ? error.message : String(error);
}

/** How to send fewer requests at once, naming the setting that decides: `lower --workers (now 8)`. */
function workersAdvice(target: ResolvedTarget, options: RunEvaluationOptions): string {
  const names = options.optionNames ?? LIBRARY_OPTION_NAMES;
  return options.workers !== undefined
    ? `lower ${names.workers} (now ${options.workers})`
    : `set a lower \`workers\` on target "${target.name}"${target.workers === undefined ? '' : ` (now ${target.workers})`}`;
}

/**
 * After the last retry of an HTTP 429: what lets the next run through, naming
 * the setting that decides (the run's option when given, else the target's).
 */
function rateLimitHint(error: unknown, { planned, run }: CaseContext): string | undefined {
  if (!isProviderError(error) || error.hint || error.details?.status !== 429) return undefined;
  const { options } = run;
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
