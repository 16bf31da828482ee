import {
  type EvaluationResult,
  type PlannedCase,
  type RunEvaluationOptions,
  type RunOutcome,
  runEvaluation,
} from '@agentv/core';
import {
  DEFAULT_REPEAT_PASS,
  parseRepeatPassRule,
  REPEAT_PASS_SPELLINGS,
  type RepeatPassRule,
  repeatPassName,
  repeatVerdictDecided,
  UsageError,
} from '@agentv/core/internal';
import { terminalText } from '@agentv/results';
import { closeChoice } from '../close-choice.js';
import { REPEAT_REDUCERS, type RepeatReducer, reduceRepeats } from './reduce-repeats.js';
import { shareProviders } from './shared-providers.js';

/** What `--repeat`, `--repeat-pass`, `--repeat-reducer` and `--repeat-early-stop` ask for. */
export interface RepeatSettings {
  count: number;
  /** The score reducer (default `mean`); it never decides the verdict. */
  reducer: RepeatReducer;
  /** `--repeat-pass`: wins over every case's `repeat_pass`; absent when not given. */
  pass?: RepeatPassRule;
  /** `--repeat-early-stop`: stop repeating a case once its verdict cannot change. */
  earlyStop?: boolean;
}

// The reducers that used to decide verdicts keep doing so when --repeat-pass is not given.
const RULE_OF_REDUCER: Partial<Record<RepeatReducer, RepeatPassRule>> = {
  pass_at_k: { kind: 'any' },
  pass_all: { kind: 'all' },
  majority: { kind: 'majority' },
};

export function parseRepeatReducer(value: string | undefined): RepeatReducer {
  if (value === undefined) return 'mean';
  if ((REPEAT_REDUCERS as readonly string[]).includes(value)) return value as RepeatReducer;
  throw new UsageError(`--repeat-reducer ${value} is not a reducer`, {
    hint: `${closeChoice(value, REPEAT_REDUCERS)}use one of ${REPEAT_REDUCERS.join(', ')}`,
  });
}

/** `--repeat-pass` and `--repeat-reducer` read together (see `RULE_OF_REDUCER`). */
export function parseRepeatPass(
  value: string | undefined,
  reducer: RepeatReducer,
): RepeatPassRule | undefined {
  if (value === undefined) return RULE_OF_REDUCER[reducer];
  const rule = parseRepeatPassRule(value);
  if (rule !== undefined) return rule;
  throw new UsageError(`--repeat-pass ${value} is not a verdict rule`, {
    hint: `${closeChoice(value, ['all', 'any', 'majority'])}use ${REPEAT_PASS_SPELLINGS}`,
  });
}

interface Outcome {
  interrupted: boolean;
  finished: number;
  budgetExhausted?: boolean;
}

export interface RunRepeatsOptions {
  plan: readonly PlannedCase[];
  settings: RepeatSettings;
  /** Runs the cases given once as repeat `repeat`, calling `onResult` per finished case. */
  runOnce: (
    repeat: number,
    cases: readonly PlannedCase[],
    onResult: (result: EvaluationResult) => Promise<void>,
  ) => Promise<Outcome>;
  /** Each case's repeat, as it finishes (for progress). */
  onRepeatResult?: (result: EvaluationResult) => void;
  /** Each case's aggregate, once its repeats ran. */
  onAggregate: (result: EvaluationResult) => Promise<void>;
}

const keyOf = (evalFile: string, evalId: string, target: string) =>
  `${evalFile}\u0000${evalId}\u0000${target}`;

/**
 * Runs the plan up to `count` times in a row, then reduces each case's repeats to one
 * aggregated result. With early stop, a repeat runs only the cases whose verdict can
 * still change. An interrupted run aggregates only the cases whose repeats all ran.
 */
export async function runRepeats(
  options: RunRepeatsOptions,
): Promise<Outcome & { results: EvaluationResult[] }> {
  const { settings } = options;
  const byCase = new Map<string, { planned: PlannedCase; repeats: EvaluationResult[] }>();
  for (const planned of options.plan) {
    const key = keyOf(planned.evalCase.filePath, planned.evalCase.id, planned.target.name);
    byCase.set(key, { planned, repeats: [] });
  }
  const ruleOf = (planned: PlannedCase) =>
    settings.pass ?? planned.evalCase.repeatPass ?? DEFAULT_REPEAT_PASS;
  const decided = (entry: { planned: PlannedCase; repeats: EvaluationResult[] }) => {
    const ran = entry.repeats.length;
    if (ran >= settings.count) return true;
    if (settings.earlyStop !== true || ran === 0) return false;
    const passed = entry.repeats.filter((r) => r.error === undefined && r.passed).length;
    return repeatVerdictDecided(ruleOf(entry.planned), passed, ran, settings.count);
  };
  let interrupted = false;
  let budgetExhausted = false;
  for (let repeat = 1; repeat <= settings.count && !interrupted && !budgetExhausted; repeat++) {
    const cases = [...byCase.values()].filter((entry) => !decided(entry)).map((e) => e.planned);
    if (cases.length === 0) break;
    const outcome = await options.runOnce(repeat, cases, async (result) => {
      byCase.get(keyOf(result.evalFile, result.evalId, result.target))?.repeats.push(result);
      options.onRepeatResult?.(result);
    });
    interrupted = outcome.interrupted;
    budgetExhausted = outcome.budgetExhausted === true;
  }
  const results: EvaluationResult[] = [];
  for (const entry of byCase.values()) {
    if (entry.repeats.length === 0 || !decided(entry)) continue;
    const aggregate = reduceRepeats(entry.repeats, {
      rule: ruleOf(entry.planned),
      reducer: settings.reducer,
      planned: settings.count,
    });
    await options.onAggregate(aggregate);
    results.push(aggregate);
  }
  return {
    interrupted,
    finished: results.length,
    results,
    ...(budgetExhausted ? { budgetExhausted } : {}),
  };
}

/**
 * `runEvaluation` under `--repeat N`: with N = 1 it is `runEvaluation` itself;
 * otherwise the plan runs up to N times and `options.onResult` sees only each case's
 * aggregate, as do the returned results.
 */
export async function runEvaluationRepeated(
  options: RunEvaluationOptions,
  settings: RepeatSettings,
): Promise<RunOutcome> {
  if (settings.count <= 1) return runEvaluation(options);
  // The repeats share their providers: a persistent agent starts once for all of them.
  const providers = shareProviders(options);
  const outcome = await runRepeats({
    plan: options.plan.cases,
    settings,
    runOnce: (number, cases, onResult) =>
      runEvaluation({
        ...options,
        plan:
          cases.length === options.plan.cases.length
            ? options.plan
            : { ...options.plan, cases: [...cases] },
        repeat: number,
        onResult,
        retainResults: false,
        createProvider: providers.create,
      }),
    onAggregate: async (result) => {
      await options.onResult?.(result);
    },
  }).finally(providers.close);
  const done = new Set(outcome.results.map((r) => keyOf(r.evalFile, r.evalId, r.target)));
  const unfinished = options.plan.cases.filter(
    (c) => !done.has(keyOf(c.evalCase.filePath, c.evalCase.id, c.target.name)),
  );
  return {
    interrupted: outcome.interrupted,
    finished: outcome.finished,
    results: options.retainResults === false ? [] : outcome.results,
    ...(outcome.interrupted || outcome.budgetExhausted === true ? { unfinished } : {}),
    ...(outcome.budgetExhausted === true ? { budgetExhausted: true } : {}),
  };
}

/**
 * Prints the repeat lines of the summary: rule, pass@k and pass^k over the cases, and the
 * flaky cases; returns how many were flaky.
 */
export function writeRepeatSummary(
  results: readonly EvaluationResult[],
  settings: RepeatSettings,
  stream: { write(text: string): unknown },
): number {
  const repeated = results.filter((result) => result.repeats !== undefined);
  const flaky = repeated.filter((result) => result.repeats!.flaky);
  const rules = [...new Set(repeated.map((result) => result.repeats!.rule))];
  const rule =
    settings.pass !== undefined
      ? repeatPassName(settings.pass)
      : rules.length > 0
        ? rules.join(', ')
        : repeatPassName(DEFAULT_REPEAT_PASS);
  const mean = (value: (result: EvaluationResult) => number) =>
    repeated.length === 0 ? 0 : repeated.reduce((t, r) => t + value(r), 0) / repeated.length;
  const runs = repeated.reduce((t, r) => t + r.repeats!.runs.length, 0);
  const stoppedEarly = repeated.filter((r) => r.repeats!.earlyStopped === true).length;
  stream.write(
    `Repeats: ${settings.count} per case, verdict by ${rule}, score by ${settings.reducer}; ` +
      `pass rate ${percent(mean((r) => r.repeats!.passRate))}, ` +
      `pass@k ${percent(mean((r) => r.repeats!.passAtK))}, ` +
      `pass^k ${percent(mean((r) => r.repeats!.passHatK))}; flaky: ${flaky.length}` +
      (stoppedEarly > 0 ? `; ${runs} repeats run (${stoppedEarly} cases stopped early)` : '') +
      '\n',
  );
  for (const result of flaky.slice(0, 20)) {
    const caseRuns = result.repeats!.runs;
    stream.write(
      `  flaky  ${terminalText(result.evalId)}  (${caseRuns.filter((run) => run.passed).length} of ${caseRuns.length} repeats passed)\n`,
    );
  }
  if (flaky.length > 20) stream.write(`  … and ${flaky.length - 20} more\n`);
  return flaky.length;
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1).replace(/\.0$/, '')}%`;
}
