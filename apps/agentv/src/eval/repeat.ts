import {
  type EvaluationResult,
  type RunEvaluationOptions,
  type RunOutcome,
  runEvaluation,
} from '@agentv/core';
import { type RepeatRun, UsageError } from '@agentv/core/internal';
import { terminalText } from '@agentv/results';
import { closeChoice } from '../close-choice.js';
import { shareProviders } from './shared-providers.js';

export const REPEAT_REDUCERS = ['mean', 'median', 'pass_at_k', 'pass_all', 'majority'] as const;
export type RepeatReducer = (typeof REPEAT_REDUCERS)[number];

/** Score a `mean` / `median` aggregate needs to pass when `--threshold` is not given. */
export const DEFAULT_REPEAT_THRESHOLD = 0.5;

export function parseRepeatReducer(value: string | undefined): RepeatReducer {
  if (value === undefined) return 'mean';
  if ((REPEAT_REDUCERS as readonly string[]).includes(value)) return value as RepeatReducer;
  throw new UsageError(`--repeat-reducer ${value} is not a reducer`, {
    hint: `${closeChoice(value, REPEAT_REDUCERS)}use one of ${REPEAT_REDUCERS.join(', ')}`,
  });
}

interface Outcome {
  interrupted: boolean;
  finished: number;
}

export interface RunRepeatsOptions {
  count: number;
  reducer: RepeatReducer;
  threshold?: number;
  /** Runs the whole plan once as repeat `repeat`, calling `onResult` per finished case. */
  runOnce: (
    repeat: number,
    onResult: (result: EvaluationResult) => Promise<void>,
  ) => Promise<Outcome>;
  /** Each case's repeat, as it finishes (for progress). */
  onRepeatResult?: (result: EvaluationResult) => void;
  /** Each case's aggregate, once every repeat ran. */
  onAggregate: (result: EvaluationResult) => Promise<void>;
}

/**
 * Runs the plan `count` times in a row, then reduces each case's repeats to one
 * aggregated result. An interrupted run aggregates only cases that ran every repeat.
 */
export async function runRepeats(
  options: RunRepeatsOptions,
): Promise<Outcome & { results: EvaluationResult[] }> {
  const byCase = new Map<string, EvaluationResult[]>();
  let interrupted = false;
  for (let repeat = 1; repeat <= options.count && !interrupted; repeat++) {
    const outcome = await options.runOnce(repeat, async (result) => {
      const key = `${result.evalFile}\u0000${result.evalId}\u0000${result.target}`;
      const list = byCase.get(key) ?? [];
      list.push(result);
      byCase.set(key, list);
      options.onRepeatResult?.(result);
    });
    interrupted = outcome.interrupted;
  }
  const results: EvaluationResult[] = [];
  for (const repeats of byCase.values()) {
    if (repeats.length < options.count) continue;
    const aggregate = reduceRepeats(repeats, options.reducer, options.threshold);
    await options.onAggregate(aggregate);
    results.push(aggregate);
  }
  return { interrupted, finished: results.length, results };
}

/**
 * Reduces one case's repeats (in repeat order) to its aggregate result. The
 * aggregate carries the last repeat's answer and details, the reduced score and
 * verdict, and `repeats` with every repeat's score and verdict. An errored repeat
 * counts as a failed repeat with score 0; the aggregate is errored only when every
 * repeat errored.
 */
export function reduceRepeats(
  repeats: EvaluationResult[],
  reducer: RepeatReducer,
  threshold?: number,
): EvaluationResult {
  const runs: RepeatRun[] = repeats.map((result, index) => ({
    repeat: index + 1,
    score: result.error === undefined ? result.score : 0,
    passed: result.error === undefined && result.passed,
    attempts: result.attempts,
    durationMs: result.durationMs,
    ...(result.error === undefined ? {} : { error: result.error }),
  }));
  const scores = runs.map((run) => run.score);
  const passes = runs.filter((run) => run.passed).length;
  const { score, passed } = reduce(reducer, scores, passes, threshold ?? DEFAULT_REPEAT_THRESHOLD);
  const flaky = passes > 0 && passes < runs.length;
  const last = repeats[repeats.length - 1]!;
  const allErrored = repeats.every((result) => result.error !== undefined);
  const note = `${reducer} of ${runs.length} repeats: ${passes} passed${flaky ? ' (flaky)' : ''}`;
  const { error: _lastError, ...base } = last;
  return {
    ...base,
    score,
    passed: allErrored ? false : passed,
    reasoning: last.reasoning ? `${note}. ${last.reasoning}` : note,
    attempts: repeats.reduce((sum, result) => sum + result.attempts, 0),
    durationMs: repeats.reduce((sum, result) => sum + result.durationMs, 0),
    ...(allErrored ? { error: last.error } : {}),
    repeats: { reducer, flaky, runs },
  };
}

function reduce(
  reducer: RepeatReducer,
  scores: number[],
  passes: number,
  threshold: number,
): { score: number; passed: boolean } {
  const n = scores.length;
  switch (reducer) {
    case 'mean': {
      const score = scores.reduce((sum, s) => sum + s, 0) / n;
      return { score, passed: score >= threshold };
    }
    case 'median': {
      const sorted = [...scores].sort((a, b) => a - b);
      const mid = Math.floor(n / 2);
      const score = n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
      return { score, passed: score >= threshold };
    }
    case 'pass_at_k':
      return { score: Math.max(...scores), passed: passes > 0 };
    case 'pass_all':
      return { score: Math.min(...scores), passed: passes === n };
    case 'majority':
      return { score: passes / n, passed: passes > n / 2 };
  }
}

/**
 * `runEvaluation` under `--repeat N`: with N = 1 it is `runEvaluation` itself;
 * otherwise the plan runs N times and `options.onResult` sees only each case's
 * aggregate, as do the returned results.
 */
export async function runEvaluationRepeated(
  options: RunEvaluationOptions,
  repeat: { count: number; reducer: RepeatReducer },
): Promise<RunOutcome> {
  if (repeat.count <= 1) return runEvaluation(options);
  // The repeats share their providers: a persistent agent starts once for all of them.
  const providers = shareProviders(options);
  const outcome = await runRepeats({
    count: repeat.count,
    reducer: repeat.reducer,
    ...(options.threshold === undefined ? {} : { threshold: options.threshold }),
    runOnce: (number, onResult) =>
      runEvaluation({
        ...options,
        repeat: number,
        onResult,
        retainResults: false,
        createProvider: providers.create,
      }),
    onAggregate: async (result) => {
      await options.onResult?.(result);
    },
  }).finally(providers.close);
  return {
    interrupted: outcome.interrupted,
    finished: outcome.finished,
    results: options.retainResults === false ? [] : outcome.results,
  };
}

/** Prints the repeat line of the summary (reducer and flaky cases); returns how many were flaky. */
export function writeRepeatSummary(
  results: readonly EvaluationResult[],
  repeat: { count: number; reducer: RepeatReducer },
  stream: { write(text: string): unknown },
): number {
  const flaky = results.filter((result) => result.repeats?.flaky === true);
  stream.write(
    `Repeats: ${repeat.count} per case, reduced with ${repeat.reducer}; flaky: ${flaky.length}\n`,
  );
  for (const result of flaky.slice(0, 20)) {
    const runs = result.repeats!.runs;
    stream.write(
      `  flaky  ${terminalText(result.evalId)}  (${runs.filter((run) => run.passed).length} of ${runs.length} repeats passed)\n`,
    );
  }
  if (flaky.length > 20) stream.write(`  … and ${flaky.length - 20} more\n`);
  return flaky.length;
}
