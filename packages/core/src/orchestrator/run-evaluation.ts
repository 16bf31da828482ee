import { setMaxListeners } from 'node:events';
import { AgentvError, isAgentvError } from '../errors/agentv-error.js';
import type { Provider } from '../provider/provider.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import type { TraceIntake } from '../provider/trace-intake.js';
import { type Emit, evaluateBatch } from './evaluate-batch.js';
import { evaluateCase } from './evaluate-case.js';
import type { EvaluationResult } from './evaluation-result.js';
import { isDryRunJudge } from './judge-for.js';
import type { PlannedCase } from './plan-run.js';
import { prepareSandboxes } from './prepare-sandboxes.js';
import type { RunBudget, RunEvaluationOptions } from './run-options.js';
import { runSecretMasks, withSecretsMasked } from './run-secret-masks.js';
import { createRunState, openProvider, type RunState } from './run-state.js';
import { startTraceIntake } from './start-trace-intake.js';
import { createWorkerPool, type WorkerPool } from './worker-pool.js';

export const DEFAULT_WORKERS = 4;

export interface RunOutcome {
  /** Results of every finished case, in the order they finished; empty when `retainResults` is false. */
  results: EvaluationResult[];
  /** How many cases finished. */
  finished: number;
  /** True when the signal stopped the run before every case finished. */
  interrupted: boolean;
  /** When interrupted or out of budget: the planned cases that did not finish, in plan order. */
  unfinished?: PlannedCase[];
  /** True when `budget` ran out: the cases in `unfinished` were not started. */
  budgetExhausted?: boolean;
}

/**
 * Runs every planned case on a worker pool, grades the answers and reports
 * each result as it finishes. Cases of a target with `provider_batching: true`
 * whose provider supports batches go to `invokeBatch` together (in chunks of
 * the target's `batch_size`). A failing case never stops the others: provider
 * and evaluator failures become that case's `error`. Throws only before any
 * case runs (a provider cannot be created or fails its health check).
 * The values a target's `${{ VAR }}` placeholders were replaced with, and
 * those of the environment's credential variables (`*_API_KEY`, `*_TOKEN`…),
 * are masked as `***` in results, attempt records, prompts given to
 * `onPrompt`, warnings and provider log lines (`runSecretMasks`).
 */
export async function runEvaluation(options: RunEvaluationOptions): Promise<RunOutcome> {
  // Every running case listens to the run's signal (its process, its retry wait, each grader's
  // script), and removes its listener when the step ends: with more than 10 workers Node would
  // warn of a leak (MaxListenersExceededWarning) that is none.
  if (options.signal) setMaxListeners(0, options.signal);
  const masks = runSecretMasks(options);
  const run = await createRunState(
    masks === undefined ? options : withSecretsMasked(options, masks),
    masks,
  );
  let intake: TraceIntake | undefined;
  try {
    await prepareSandboxes(run);
    intake = await startTraceIntake(run);
    await startProviders(run);
    return await runCases(run);
  } finally {
    // Providers that keep processes running (a persistent `cli` target) stop them here,
    // whether the run finished, was interrupted or failed; judges made on first use too.
    await closeProviders(run.created);
    // Then the workspaces: `after_all` hooks, pools and copies; only kept ones stay.
    if (run.ownsWorkspaces) await run.workspaces?.close();
    await intake?.close();
  }
}

async function runCases(run: RunState): Promise<RunOutcome> {
  const { options, masks, providers } = run;
  const size = poolSize(options);
  const pool = createWorkerPool(size, perTargetLimits(options));
  const results: EvaluationResult[] = [];
  let finished = 0;
  // Which cases finished, to name the others if the run is interrupted (no result is kept).
  const done = new Set<PlannedCase>();
  // What a case cost counts against --budget-usd before its worker slot is freed, so the
  // next case is not started on a budget already spent; batches count as they report.
  const counted = new WeakSet<EvaluationResult>();
  const spend = (result: EvaluationResult) => {
    if (options.budget === undefined || counted.has(result)) return;
    counted.add(result);
    options.budget.spentUsd +=
      (result.costUsd ?? 0) + (result.judgeCostUsd ?? 0) + (result.simulatorCostUsd ?? 0);
  };
  // Returns what `onResult` returns, without a promise of its own: a batch emits a result per
  // case, and callers wait only for what the hook waits for.
  const emit: Emit = (graded, planned) => {
    // A case cut short by an interrupt did not finish; it is left out rather than recorded as an error.
    if (options.signal?.aborted && graded.error !== undefined) return;
    const result = masks?.forTarget(planned.target.name)?.deep(graded) ?? graded;
    finished++;
    if (options.signal !== undefined || options.budget !== undefined) done.add(planned);
    spend(graded);
    if (options.retainResults !== false) results.push(result);
    return options.onResult?.(result);
  };

  const byTarget = groupBy(options.plan.cases, (planned) => planned.target.name);
  if (run.workspaces !== undefined) {
    for (const [targetName, cases] of byTarget) {
      const provider = providers.get(targetName)!;
      if (cases[0]!.target.providerBatching && provider.supportsBatch && provider.invokeBatch) {
        refusePerCaseWorkspaces(targetName, cases);
      }
    }
  }
  const tasks: Promise<void>[] = [];
  for (const [targetName, cases] of byTarget) {
    const provider = providers.get(targetName)!;
    const target = cases[0]!.target;
    const batched = target.providerBatching && canBatch(provider, options);
    // A conversation is asked turn by turn, never in a batch.
    const conversations = batched ? cases.filter((planned) => planned.evalCase.conversation) : [];
    const single = batched ? conversations : cases;
    if (batched) {
      const batchCases =
        conversations.length === 0
          ? cases
          : cases.filter((planned) => !planned.evalCase.conversation);
      // Batch answers are matched to cases by id, and ids are unique only within one eval file.
      for (const fileCases of groupBy(
        batchCases,
        (planned) => planned.evalCase.filePath,
      ).values()) {
        for (const chunk of chunked(fileCases, target.batchSize ?? fileCases.length)) {
          tasks.push(
            runTask(pool, targetName, run, () => evaluateBatch(chunk, provider, run, size, emit)),
          );
        }
      }
    }
    for (const planned of single) {
      // The worker slot is freed as soon as the case is graded: reporting the result
      // (result file, progress) must not hold back the next case's process.
      tasks.push(
        runTask(pool, targetName, run, async () => {
          const result = await evaluateCase(planned, provider, run);
          spend(result);
          return result;
        }).then((result) => (result === undefined ? undefined : emit(result, planned))),
      );
    }
  }
  // Cases never throw; a hook that does (e.g. the result writer on a full disk) ends
  // the run, but only after every other task has settled, so none is left running.
  const failure = (await Promise.allSettled(tasks)).find(
    (outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected',
  );
  // A workspace that could not be set up stopped the run: its error, not a case's, is the news.
  if (run.stopped !== undefined) throw run.stopped;
  if (failure) throw failure.reason;
  const interrupted = options.signal?.aborted === true && finished < options.plan.cases.length;
  const budgetExhausted =
    !interrupted && finished < options.plan.cases.length && isSpent(options.budget);
  return {
    results,
    finished,
    interrupted,
    ...(interrupted || budgetExhausted
      ? { unfinished: options.plan.cases.filter((c) => !done.has(c)) }
      : {}),
    ...(budgetExhausted ? { budgetExhausted } : {}),
  };
}

function runTask<T>(
  pool: WorkerPool,
  targetName: string,
  run: RunState,
  task: () => Promise<T>,
): Promise<T | undefined> {
  return pool.run(async () => {
    if (run.options.signal?.aborted || run.stopped !== undefined) return undefined;
    if (isSpent(run.options.budget)) return undefined;
    return task();
  }, targetName);
}

function isSpent(budget: RunBudget | undefined): boolean {
  return budget !== undefined && budget.spentUsd >= budget.limitUsd;
}

/**
 * A batch answers many cases in one call, so they cannot each have a workspace of their
 * own: `isolation: shared` only. `validate` and `eval` refuse this before any run with the
 * file and line; this is the library's last line.
 */
function refusePerCaseWorkspaces(targetName: string, cases: readonly PlannedCase[]): void {
  const perCase = cases.find((planned) => planned.evalCase.workspace?.isolation === 'per_case');
  if (perCase === undefined) return;
  throw new AgentvError(
    `case "${perCase.evalCase.id}" (${perCase.evalCase.filePath}) has a workspace with isolation: per_case, but target "${targetName}" answers in batches (provider_batching)`,
    {
      hint: 'use isolation: shared in the workspace block, or turn provider_batching off for this target',
    },
  );
}

function canBatch(provider: Provider, options: RunEvaluationOptions): boolean {
  if (provider.supportsBatch && provider.invokeBatch) return true;
  options.onWarning?.(
    `target "${provider.targetName}" sets provider_batching, but its provider "${provider.kind}" cannot run batches; running its cases one by one`,
  );
  return false;
}

/**
 * The items by key, in order. A run's cases mostly share one key (one target, one eval file):
 * their one group is then `items` itself, not a copy of every case.
 */
function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, readonly T[]> {
  if (items.length === 0) return new Map();
  const first = key(items[0]!);
  let index = 1;
  while (index < items.length && key(items[index]!) === first) index++;
  if (index === items.length) return new Map([[first, items]]);
  const groups = new Map<string, T[]>([[first, items.slice(0, index)]]);
  for (; index < items.length; index++) {
    const item = items[index]!;
    const name = key(item);
    const group = groups.get(name);
    if (group) group.push(item);
    else groups.set(name, [item]);
  }
  return groups;
}

/** `items` in chunks of `size`; one chunk is `items` itself. */
function chunked<T>(items: readonly T[], size: number): (readonly T[])[] {
  if (items.length > 0 && items.length <= size) return [items];
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) {
    chunks.push(items.slice(start, start + size));
  }
  return chunks;
}

/** Calls every provider's `close` hook once; a failing hook does not stop the others. */
async function closeProviders(providers: readonly Provider[]): Promise<void> {
  await Promise.allSettled([...new Set(providers)].map((provider) => provider.close?.()));
}

/**
 * Starts the providers of the run's targets, and of the judge targets no case runs
 * against, then runs every health check once, before the first case.
 */
async function startProviders(run: RunState): Promise<void> {
  const { options, masks, providers, judgeProviders } = run;
  for (const target of options.plan.targets) {
    providers.set(target.name, openProvider(run, target, 'target'));
  }
  // Judge targets that no case runs against are started here too, so their
  // providers' health checks run once, like the run targets'.
  const startJudge = (asked: ResolvedTarget | undefined) => {
    if (!asked || isDryRunJudge(asked)) return;
    if (providers.has(asked.name) || judgeProviders.has(asked.name)) return;
    try {
      judgeProviders.set(asked.name, openProvider(run, asked, 'judge'));
    } catch {
      // judgeFor (or the simulated user) reports it on each case that asks.
    }
  };
  // Targets with a case that runs on this machine (not in a sandbox); judges always do.
  const onHost = new Set<string>();
  const firstFile = new Map<string, string>();
  const { cases } = options.plan;
  for (let index = 0; index < cases.length; index++) {
    const planned = cases[index]!;
    const last = cases[index - 1];
    // Consecutive cases mostly share their targets and workspace: the first of them says it all.
    if (
      last !== undefined &&
      planned.target === last.target &&
      planned.judgeTarget === last.judgeTarget &&
      planned.simulatorTarget === last.simulatorTarget &&
      planned.evalCase.workspace === last.evalCase.workspace
    ) {
      continue;
    }
    startJudge(planned.judgeTarget);
    // A simulated user's target is started and health-checked like a judge's.
    startJudge(planned.simulatorTarget);
    const { evalCase, target } = planned;
    if (evalCase.workspace?.docker === undefined) onHost.add(target.name);
    if (!firstFile.has(target.name)) firstFile.set(target.name, evalCase.filePath);
  }
  for (const provider of [...providers.values(), ...judgeProviders.values()]) {
    if (!provider.healthcheck) continue;
    try {
      await provider.healthcheck({
        onHost: judgeProviders.has(provider.targetName) || onHost.has(provider.targetName),
        ...(firstFile.has(provider.targetName)
          ? { evalFile: firstFile.get(provider.targetName) }
          : {}),
      });
    } catch (error) {
      // The provider's own hint says what to do about its probe; keep it as the one hint.
      const hint = isAgentvError(error) ? error.hint : undefined;
      const reason = error instanceof Error ? error.message : String(error);
      const masked = (text: string) => masks?.all.text(text) ?? text;
      throw new AgentvError(
        `health check of target "${provider.targetName}" failed: ${masked(reason)}`,
        {
          hint: masked(
            hint ?? 'start the agent or service the target needs, or fix its healthcheck settings',
          ),
          cause: error,
        },
      );
    }
  }
}

function poolSize(options: RunEvaluationOptions): number {
  if (options.workers !== undefined) return options.workers;
  const fromTargets = options.plan.targets
    .map((target) => target.workers)
    .filter((workers): workers is number => workers !== undefined);
  return fromTargets.length > 0 ? Math.max(...fromTargets) : DEFAULT_WORKERS;
}

function perTargetLimits(options: RunEvaluationOptions): Map<string, number> {
  const limits = new Map<string, number>();
  if (options.workers !== undefined) return limits;
  for (const target of options.plan.targets) {
    if (target.workers !== undefined) limits.set(target.name, target.workers);
  }
  return limits;
}
