import path from 'node:path';
import { UsageError } from '../errors/usage-error.js';
import type { EvalCase } from '../eval-file/eval-case.js';
import { createEvaluatorRegistry, defaultEvaluators } from '../evaluators/evaluator-registry.js';
import { planRun } from '../orchestrator/plan-run.js';
import { reportIssues } from '../orchestrator/report-issues.js';
import { runEvaluation } from '../orchestrator/run-evaluation.js';
import type { RunEvaluationOptions } from '../orchestrator/run-options.js';
import { runTargets } from '../orchestrator/run-targets.js';
import type { BuiltPrompt } from '../prompt/build-prompt.js';
import { createMockProvider } from '../provider/mock-provider.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import { createResultTally } from '../statistics/result-tally.js';
import { checkNumberOptions } from './check-number-options.js';
import type { EvaluateOptions, EvaluateOutcome } from './evaluate-options.js';
import { loadEvaluationInput, optionNamesOf } from './load-evaluation-input.js';

/**
 * Runs an evaluation the way `agentv eval` does: loads the eval files (or
 * takes parsed cases), resolves each case's targets (`targets`/`target`,
 * else the eval file's `execution.targets`/`execution.target`, else
 * `default`), checks everything before any agent starts, runs every case
 * against every one of its targets and grades the answers. The steps are
 * `loadProject`, `planRun` and `runEvaluation`, as for `agentv eval`.
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
  const optionNames = optionNamesOf(options);
  const { plan, issues } = planRun({
    cases: input.cases,
    ...runTargets(input.targets, input.targetsFile, cwd, input.inlineTargets),
    targetOverride:
      options.targets !== undefined && options.targets.length > 0
        ? options.targets
        : options.target,
    ...(options.judgeTarget === undefined ? {} : { judgeTargetOverride: options.judgeTarget }),
    providerRegistry: options.providers,
    evaluatorRegistry,
    dryRun: options.dryRun === true,
    optionNames,
  });
  reportIssues([...input.issues, ...issues], cwd, options.onWarning);
  if (plan.cases.length === 0) throw new UsageError('the eval files contain no cases to run');

  const total = plan.cases.length;
  let done = 0;
  const tally = createResultTally(options.retainResults ?? true);
  const runOptions: RunEvaluationOptions = {
    plan,
    providerRegistry: options.providers,
    evaluatorRegistry,
    workers: options.workers,
    maxRetries: options.maxRetries,
    optionNames,
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
      tally.add(result);
      await options.onResult?.(result);
      options.onProgress?.({ type: 'case-finished', result, done: count, total });
    },
    retainResults: false,
  };
  if (options.keepWorkspaces === true) runOptions.keepWorkspaces = true;
  if (options.workspaceRoot !== undefined) runOptions.workspaceRoot = options.workspaceRoot;
  if (options.onWorkspaceKept !== undefined) runOptions.onWorkspaceKept = options.onWorkspaceKept;
  if (options.sandboxRuntime !== undefined) runOptions.sandboxRuntime = options.sandboxRuntime;
  const outcome = await runEvaluation(runOptions);
  return {
    results: tally.results,
    summary: tally.statistics(),
    interrupted: outcome.interrupted,
    finished: outcome.finished,
    plan,
    ...(outcome.unfinished === undefined ? {} : { unfinished: outcome.unfinished }),
  };
}
