import type { EvaluationResult } from '@agentv/core';
import {
  addTokenUsage,
  type RepeatPassRule,
  type RepeatRun,
  repeatPassName,
  repeatVerdict,
} from '@agentv/core/internal';

/** How `--repeat-reducer` turns the repeats' scores into the aggregate's `score`. */
export const REPEAT_REDUCERS = ['mean', 'median', 'pass_at_k', 'pass_all', 'majority'] as const;
export type RepeatReducer = (typeof REPEAT_REDUCERS)[number];

/** How one case's repeats become its aggregate. */
export interface ReduceOptions {
  /** The verdict rule (`--repeat-pass`, else the case's `repeat_pass`, else `all`). */
  rule: RepeatPassRule;
  reducer: RepeatReducer;
  /** Repeats asked for; more than were run when early stop ended the case. */
  planned: number;
}

/**
 * Reduces one case's repeats (in repeat order) to its aggregate result. The verdict
 * comes from the repeats' verdicts under `rule`, counted against the `planned`
 * repeats (an errored repeat counts as failed); the score is the `reducer`'s and
 * never decides the verdict. Usage, cost, attempts and duration are summed over the
 * repeats; the answer and details are the last repeat's. The aggregate is errored
 * only when every repeat errored, and `cached` only when every repeat was.
 */
export function reduceRepeats(
  repeats: readonly EvaluationResult[],
  options: ReduceOptions,
): EvaluationResult {
  const runs: RepeatRun[] = repeats.map((result, index) => {
    const run: RepeatRun = {
      repeat: index + 1,
      score: result.error === undefined ? result.score : 0,
      passed: result.error === undefined && result.passed,
      attempts: result.attempts,
      durationMs: result.durationMs,
    };
    if (result.cached === true) run.cached = true;
    if (result.error !== undefined) run.error = result.error;
    return run;
  });
  const passes = runs.filter((run) => run.passed).length;
  const flaky = passes > 0 && passes < runs.length;
  const last = repeats[repeats.length - 1]!;
  const allErrored = repeats.every((result) => result.error !== undefined);
  const rule = repeatPassName(options.rule);
  const earlyStopped = runs.length < options.planned;
  const note =
    `${passes} of ${runs.length} repeats passed${flaky ? ' (flaky)' : ''}, verdict by ${rule}` +
    (earlyStopped ? ` (stopped early of ${options.planned})` : '');
  const {
    error: _lastError,
    failureClass: _lastClass,
    usage: _u,
    costUsd: _c,
    judgeUsage: _ju,
    judgeCostUsd: _jc,
    cached: _cached,
    ...base
  } = last;
  const aggregate: EvaluationResult = {
    ...base,
    score: reduceScores(options.reducer, runs, passes),
    passed: !allErrored && repeatVerdict(options.rule, passes, options.planned),
    reasoning: last.reasoning ? `${note}. ${last.reasoning}` : note,
    attempts: sum(repeats, (result) => result.attempts),
    durationMs: sum(repeats, (result) => result.durationMs),
    repeats: {
      rule,
      reducer: options.reducer,
      planned: options.planned,
      flaky,
      passRate: passes / runs.length,
      passAtK: passes > 0 ? 1 : 0,
      passHatK: passes === runs.length ? 1 : 0,
      ...(earlyStopped ? { earlyStopped: true } : {}),
      runs,
    },
  };
  let usage: EvaluationResult['usage'];
  let judgeUsage: EvaluationResult['judgeUsage'];
  for (const result of repeats) {
    usage = addTokenUsage(usage, result.usage);
    judgeUsage = addTokenUsage(judgeUsage, result.judgeUsage);
  }
  if (usage !== undefined) aggregate.usage = usage;
  const costUsd = sumKnown(repeats, (result) => result.costUsd);
  if (costUsd !== undefined) aggregate.costUsd = costUsd;
  if (judgeUsage !== undefined) aggregate.judgeUsage = judgeUsage;
  const judgeCostUsd = sumKnown(repeats, (result) => result.judgeCostUsd);
  if (judgeCostUsd !== undefined) aggregate.judgeCostUsd = judgeCostUsd;
  if (repeats.every((result) => result.cached === true)) aggregate.cached = true;
  if (allErrored) aggregate.error = last.error!;
  if (!aggregate.passed) {
    // The class of the first repeat that did not pass: what failed first is what to look at.
    const failed = repeats.find((result) => result.error !== undefined || !result.passed);
    aggregate.failureClass = failed?.failureClass ?? 'agent';
  }
  return aggregate;
}

function reduceScores(reducer: RepeatReducer, runs: readonly RepeatRun[], passes: number): number {
  const scores = runs.map((run) => run.score);
  const n = scores.length;
  switch (reducer) {
    case 'mean':
      return scores.reduce((total, score) => total + score, 0) / n;
    case 'median': {
      const sorted = [...scores].sort((a, b) => a - b);
      const mid = Math.floor(n / 2);
      return n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
    }
    case 'pass_at_k':
      return Math.max(...scores);
    case 'pass_all':
      return Math.min(...scores);
    case 'majority':
      return passes / n;
  }
}

function sum<T>(items: readonly T[], value: (item: T) => number): number {
  return items.reduce((total, item) => total + value(item), 0);
}

/** The sum of the values that are known; undefined when none is. */
function sumKnown<T>(
  items: readonly T[],
  value: (item: T) => number | undefined,
): number | undefined {
  let total: number | undefined;
  for (const item of items) {
    const known = value(item);
    if (known !== undefined) total = (total ?? 0) + known;
  }
  return total;
}
