import type { Judge } from '../evaluators/evaluator.js';
import { EvaluatorError } from '../evaluators/evaluator-error.js';
import { createJudge } from '../evaluators/judge.js';
import type { TokenUsage } from '../provider/provider-response.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import { addTokenUsage } from '../provider/token-usage.js';
import { retryPolicyFor, verboseLog } from './case-retries.js';
import { messageOf } from './failure-message.js';
import { DRY_RUN_JUDGE_REPLY, type PlannedCase } from './plan-run.js';
import { openProvider, type RunState } from './run-state.js';

/**
 * The judge of a planned case (its judge target's provider, with that target's retry
 * policy), made on the case's first use of it in `run`: the provider started with the
 * run's targets when there is one, else a new one the run closes when it ends.
 */
export function judgeFor(planned: PlannedCase, run: RunState): Judge | undefined {
  const target = planned.judgeTarget;
  if (!target) return undefined;
  let judge = run.judges.get(target.name);
  if (!judge) {
    judge = makeJudge(target, run);
    run.judges.set(target.name, judge);
  }
  return judge;
}

function makeJudge(target: ResolvedTarget, run: RunState): Judge {
  try {
    if (isDryRunJudge(target)) {
      return {
        targetName: target.name,
        dryRun: true,
        ask: () => Promise.reject(new EvaluatorError('a dry-run judge is not asked')),
      };
    }
    const provider = run.judgeProviders.get(target.name) ?? openProvider(run, target, 'judge');
    return createJudge(provider, retryPolicyFor(target, run.options), verboseLog(run.options));
  } catch (error) {
    // Reported on each case that asks, as that evaluator's error.
    const failure = new EvaluatorError(
      `judge target "${target.name}" cannot be started: ${messageOf(error)}`,
    );
    return { targetName: target.name, ask: () => Promise.reject(failure) };
  }
}

/** The stand-in judge `planRun` makes under `--dry-run`. */
export function isDryRunJudge(target: ResolvedTarget): boolean {
  return target.provider === 'mock' && target.settings.response === DRY_RUN_JUDGE_REPLY;
}

/** A case's view of a shared judge that adds up the tokens and cost of the calls made through it. */
export function meteredJudge(shared: Judge): {
  judge: Judge;
  usage?: TokenUsage;
  costUsd?: number;
} {
  const meter: { judge: Judge; usage?: TokenUsage; costUsd?: number } = {
    judge: {
      ...shared,
      ask: async (request) => {
        const response = await shared.ask(request);
        // A reply from the cache cost nothing now: its recorded tokens were spent by an earlier run.
        if (response.cached === true) return response;
        const usage = addTokenUsage(meter.usage, response.usage);
        if (usage !== undefined) meter.usage = usage;
        if (response.costUsd !== undefined) meter.costUsd = (meter.costUsd ?? 0) + response.costUsd;
        return response;
      },
    },
  };
  return meter;
}
