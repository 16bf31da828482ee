import type { EvalCase } from '../eval-file/eval-case.js';
import type { EvaluatorRegistry } from '../evaluators/evaluator.js';
import type { AttemptRecord, EvaluationResult } from '../orchestrator/evaluation-result.js';
import type { PlannedCase, RunPlan } from '../orchestrator/plan-run.js';
import type { OptionNames } from '../project/option-names.js';
import type { BuiltPrompt } from '../prompt/build-prompt.js';
import type { ProviderContext } from '../provider/provider-factory.js';
import type { ProviderRegistry } from '../provider/provider-registry.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import type { SandboxRuntime } from '../sandbox/sandbox-runtime.js';
import type { RunStatistics } from '../statistics/run-statistics.js';

/**
 * A target written as in `targets.yaml` (`name`, `provider`, the provider's
 * settings; camelCase or snake_case; `${{ VAR }}` placeholders filled from `env`).
 */
export type TargetDefinition = { name: string; provider: string } & Record<string, unknown>;

/** What `evaluate()` runs, against what, and whom it tells. */
export interface EvaluateOptions {
  /** Eval files to run (resolved against `cwd`). Give these or `cases`. */
  evalFiles?: readonly string[];
  /**
   * Cases already parsed (e.g. with `loadEvalFile`), instead of `evalFiles`.
   * Each case's `filePath` must be absolute: results name it, and relative
   * paths in targets resolve against it.
   */
  cases?: readonly EvalCase[];
  /** Every provider kind targets may use, e.g. `createProviderRegistry([cliProviderFactory])`. */
  providers: ProviderRegistry;
  /** Graders by type; default `createEvaluatorRegistry(defaultEvaluators())`. */
  evaluators?: EvaluatorRegistry;
  /**
   * Path of the targets file (relative to `cwd`); default: found from the eval
   * files (or the first case's file) upwards. Not with `targetDefinitions`.
   */
  targetsFile?: string;
  /**
   * Targets given in code (in the targets.yaml shape), checked like a targets
   * file's and named `targetDefinitions` in issues. They replace the targets
   * file: none is looked for near the eval files or cases, so a `targets.yaml`
   * there is neither loaded nor checked. Targets an eval file declares inline
   * (`targets:`) still apply to its own cases. Not with `targetsFile`.
   */
  targetDefinitions?: readonly TargetDefinition[];
  /** Run every case against this target (wins over the eval files' `execution.target(s)`). */
  target?: string;
  /** Run every case against each of these targets (wins over `target`). */
  targets?: readonly string[];
  /** The target LLM graders ask; wins over `execution.judge_target` and targets' `judge_target`. */
  judgeTarget?: string;
  /**
   * How messages name `target(s)`, `judgeTarget` and `targetsFile`; default
   * their option names (the CLI passes `CLI_OPTION_NAMES`, its flags).
   */
  optionNames?: OptionNames;
  /** Cases run at once; default the targets' `workers`, else 4. */
  workers?: number;
  /** Retries of a failed agent or judge call; wins over a target's `max_retries`; default: that, else 2. */
  maxRetries?: number;
  /**
   * A case passes when its score reaches this (0..1), instead of by its file's rule (its
   * `execution.threshold`; without one, every grader passes, or in a `tests:` file a score of 0.8).
   */
  threshold?: number;
  /** Answer every case with the mock provider instead of the real targets. */
  dryRun?: boolean;
  /** Stops scheduling cases and aborts running ones; the outcome is then `interrupted`. */
  signal?: AbortSignal;
  /** The shell's variables, merged over the project's `.env`; default `process.env` (never changed). */
  env?: Record<string, string | undefined>;
  /** Resolves relative paths and names files in messages; default `process.cwd()`. */
  cwd?: string;
  /** Passed to every provider (verbose logging, default timeout, cache folder). */
  providerContext?: Omit<ProviderContext, 'env'>;
  /** Called with each finished case's result, in the order cases finish. */
  onResult?: (result: EvaluationResult) => void | Promise<void>;
  /** A case started or finished, with counts. */
  onProgress?: (event: EvaluateProgressEvent) => void;
  /** Something worth knowing that does not stop the run (file warnings, provider notes). */
  onWarning?: (message: string) => void;
  /** Each case's prompt, once built, before its provider call. */
  onPrompt?: (
    evalCase: EvalCase,
    prompt: BuiltPrompt,
    target: ResolvedTarget,
  ) => void | Promise<void>;
  /** Each provider call of a case, as it ends. */
  onAttempt?: (record: AttemptRecord) => void | Promise<void>;
  /**
   * Keep every result for `EvaluateOutcome.results` (default true); `false` keeps a
   * summary of each (for very large runs); `'none'` keeps none (`results` is empty) and
   * only adds each result to `summary`, for runs of millions of cases.
   */
  retainResults?: boolean | 'none';
  /** Keep every case's workspace, passing ones too (default: only failed and errored cases'). */
  keepWorkspaces?: boolean;
  /** The folder workspaces are made in (default: the system temp folder). */
  workspaceRoot?: string;
  /** Each workspace kept, with the result of its case, as it is kept. */
  onWorkspaceKept?: (path: string, result: EvaluationResult) => void;
  /**
   * Starts the containers of workspaces with `docker:`, e.g. `await
   * createDockerRuntime()` of `@agentv/sandbox-docker`; such a run without it
   * stops before its first case.
   */
  sandboxRuntime?: SandboxRuntime;
}

/** A case started (its prompt was built) or finished; `done` of `total` cases have finished. */
export type EvaluateProgressEvent =
  | { type: 'case-started'; evalId: string; target: string; done: number; total: number }
  | { type: 'case-finished'; result: EvaluationResult; done: number; total: number };

/** What `evaluate()` returns. A failing or errored case is a result, never an exception. */
export interface EvaluateOutcome {
  /** Every finished case, in finishing order; with `retainResults: false`, a summary of each (answer, trace and evaluator details dropped). */
  results: EvaluationResult[];
  /** Counts, pass rate, scores, tokens, cost and duration; per target in `summary.targets`. */
  summary: RunStatistics;
  /** True when `signal` stopped the run before every case finished. */
  interrupted: boolean;
  /** How many cases finished. */
  finished: number;
  /** The cases that were to run, each with its target. */
  plan: RunPlan;
  /** When `interrupted`: the planned cases that did not finish. */
  unfinished?: PlannedCase[];
}
