import path from 'node:path';
import type { Issue } from '../errors/input-issue.js';
import { formatIssue } from '../errors/input-issue.js';
import { InvalidInputError } from '../errors/invalid-input-error.js';
import { UsageError } from '../errors/usage-error.js';
import type { EvalCase } from '../eval-file/eval-case.js';
import { createEvaluatorRegistry, defaultEvaluators } from '../evaluators/evaluator-registry.js';
import type { EvaluationResult } from '../orchestrator/evaluation-result.js';
import { planRun } from '../orchestrator/plan-run.js';
import { runEvaluation } from '../orchestrator/run-evaluation.js';
import type { RunEvaluationOptions } from '../orchestrator/run-options.js';
import type { BuiltPrompt } from '../prompt/build-prompt.js';
import { createMockProvider } from '../provider/mock-provider.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import {
  computeRunStatistics,
  createRunStatisticsAccumulator,
} from '../statistics/run-statistics.js';
import { displayPath } from '../util/display-path.js';
import { checkNumberOptions } from './check-number-options.js';
import type { EvaluateOptions, EvaluateOutcome } from './evaluate-options.js';
import { loadEvaluationInput, optionNamesOf } from './load-evaluation-input.js';

/**
 * Runs an evaluation the way `agentv eval` does: loads the eval files (or
 * takes parsed cases), resolves each case's targets (`targets`/`target`,
 * else the eval file's `execution.targets`/`execution.target`, else
 * `default`), checks everything before any agent starts, runs every case
 * against every one of its targets and grades the answers.
 *
 * Throws `AgentvError`s (`InvalidInputError` carrying located issues,
 * `UsageError`, a failed health check) for problems found before the run;
 * a case that fails or errors is a result, never an exception.
 */
export async function evaluate(options: EvaluateOptions): Promise<EvaluateOutcome> {
  checkNumberOptions(options);
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const input = await loadEvaluationInput(options, cwd);
  const evaluatorRegistry = options.evaluators ?? createEvaluatorRegistry(defaultEvaluators());
  const selected = options.selectCases ? await options.selectCases(input.cases) : input.cases;
  const { plan: fullPlan, issues } = planRun({
    cases: selected,
    targets: input.targets ?? [],
    targetsFile: input.targetsFile && displayPath(cwd, input.targetsFile),
    targetOverride:
      options.targets !== undefined && options.targets.length > 0
        ? options.targets
        : options.target,
    ...(options.judgeTarget === undefined ? {} : { judgeTargetOverride: options.judgeTarget }),
    providerRegistry: options.providers,
    evaluatorRegistry,
    dryRun: options.dryRun === true,
    // A targets file with errors is already reported; "unknown target" on top would mislead.
    checkTargets: input.targets !== undefined,
    ...(input.inlineTargets === undefined ? {} : { inlineTargets: input.inlineTargets }),
    optionNames: optionNamesOf(options),
  });
  reportIssues([...input.issues, ...issues], cwd, options.onWarning);

  const chosen = options.onPlan ? await options.onPlan(fullPlan) : fullPlan;
  if (chosen === 'stop') {
    return {
      results: [],
      summary: computeRunStatistics([]),
      interrupted: false,
      finished: 0,
      plan: fullPlan,
    };
  }
  if (fullPlan.cases.length === 0) {
    if (selected.length === 0 && input.cases.length > 0) {
      throw new UsageError(`selectCases chose none of the ${input.cases.length} cases loaded`, {
        hint: 'check what selectCases filters by, or leave it out to run every case',
      });
    }
    throw new UsageError('the eval files contain no cases to run');
  }

  const total = chosen.cases.length;
  let done = 0;
  // The summary needs little of each result, so without retained results it keeps just that;
  // with `'none'` nothing is kept per result but the statistics' running totals.
  const retain = options.retainResults ?? true;
  const summarized: EvaluationResult[] = [];
  const statistics = retain === 'none' ? createRunStatisticsAccumulator() : undefined;
  const runOptions: RunEvaluationOptions = {
    plan: chosen,
    providerRegistry: options.providers,
    evaluatorRegistry,
    workers: options.workers,
    maxRetries: options.maxRetries,
    optionNames: optionNamesOf(options),
    threshold: options.threshold,
    providerContext: { ...options.providerContext, env: input.env },
    createProvider:
      options.dryRun === true ? (target) => createMockProvider(target.name) : undefined,
    signal: options.signal,
    onWarning: options.onWarning,
    // Only when someone listens: a batch would otherwise await a no-op for every case.
    ...(options.onProgress === undefined && options.onPrompt === undefined
      ? {}
      : {
          onPrompt: async (evalCase: EvalCase, prompt: BuiltPrompt, target: ResolvedTarget) => {
            options.onProgress?.({
              type: 'case-started',
              evalId: evalCase.id,
              target: target.name,
              done,
              total,
            });
            await options.onPrompt?.(evalCase, prompt, target);
          },
        }),
    onAttempt: options.onAttempt,
    onResult: async (result) => {
      const count = ++done;
      if (statistics) statistics.add(result);
      else if (retain === false) summarized.push(summaryOf(result));
      await options.onResult?.(result);
      options.onProgress?.({ type: 'case-finished', result, done: count, total });
    },
    retainResults: retain === true,
  };
  const outcome = await (options.runner ?? runEvaluation)(runOptions);
  const results = retain === true ? outcome.results : summarized;
  return {
    results,
    summary: statistics ? statistics.statistics() : computeRunStatistics(results),
    interrupted: outcome.interrupted,
    finished: outcome.finished,
    plan: chosen,
    ...(outcome.unfinished === undefined ? {} : { unfinished: outcome.unfinished }),
  };
}

/**
 * What run statistics read of a result: its answer, trace and evaluator
 * details dropped, so large runs can keep one per case.
 */
export function summaryOf(result: EvaluationResult): EvaluationResult {
  // Every field written out, in one order: `{ ...result, candidateAnswer: '' }` gave each
  // summary a hidden class of its own in V8 (about 500 bytes, 50 MiB at 100,000 cases).
  return {
    timestamp: result.timestamp,
    evalId: result.evalId,
    dataset: result.dataset,
    evalFile: result.evalFile,
    target: result.target,
    conversationId: result.conversationId,
    score: result.score,
    passed: result.passed,
    hits: [],
    misses: result.misses.slice(0, 1),
    reasoning: result.passed ? '' : result.reasoning,
    candidateAnswer: '',
    evaluatorResults: [],
    attempts: result.attempts,
    durationMs: result.durationMs,
    usage: result.usage,
    costUsd: result.costUsd,
    cached: result.cached,
    judgeUsage: result.judgeUsage,
    judgeCostUsd: result.judgeCostUsd,
    error: result.error,
    traceSummary: result.traceSummary,
    repeats: result.repeats,
    trace: undefined,
    outputMessages: undefined,
  };
}

/**
 * Reports warnings, and throws when any issue is an error so the run never starts.
 * Issues come by file, then by position in it, as `agentv validate` lists them.
 */
function reportIssues(
  issues: readonly Issue[],
  cwd: string,
  onWarning: ((message: string) => void) | undefined,
): void {
  const byFile = issues
    .map((issue, index) => ({ issue, index }))
    .sort(
      (a, b) =>
        (a.issue.file ?? '').localeCompare(b.issue.file ?? '') ||
        (a.issue.line ?? 0) - (b.issue.line ?? 0) ||
        (a.issue.column ?? 0) - (b.issue.column ?? 0) ||
        a.index - b.index,
    );
  const shown = byFile.map(({ issue }) =>
    issue.file === undefined ? issue : { ...issue, file: displayPath(cwd, issue.file) },
  );
  for (const warning of shown.filter((issue) => issue.severity === 'warning')) {
    onWarning?.(formatIssue(warning));
  }
  const errors = shown.filter((issue) => issue.severity === 'error');
  if (errors.length > 0) throw new InvalidInputError(errors);
}
