import type { EvalCase } from '../eval-file/eval-case.js';
import type { EvaluatorRegistry } from '../evaluators/evaluator.js';
import type { OptionNames } from '../project/option-names.js';
import type { BuiltPrompt } from '../prompt/build-prompt.js';
import type { Provider } from '../provider/provider.js';
import type { ProviderContext } from '../provider/provider-factory.js';
import type { ProviderRegistry } from '../provider/provider-registry.js';
import type { RecordedTraceReader } from '../provider/recorded-trace.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import type { TraceIntake } from '../provider/trace-intake.js';
import type { RetryPolicy } from '../retry/retry-policy.js';
import type { SandboxRuntime } from '../sandbox/sandbox-runtime.js';
import type { FileChanges } from '../workspace/file-changes.js';
import type { WorkspaceManager } from '../workspace/workspace-manager.js';
import type { AttemptRecord, EvaluationResult } from './evaluation-result.js';
import type { RunPlan } from './plan-run.js';

/** Why a run creates a provider: to answer cases (`target`) or to grade answers (`judge`). */
export type ProviderRole = 'target' | 'judge';

/** What `runEvaluation` is given; every step of a case reads it through its run's `RunState`. */
export interface RunEvaluationOptions {
  plan: RunPlan;
  providerRegistry: ProviderRegistry;
  evaluatorRegistry: EvaluatorRegistry;
  /** `--workers`; wins over the targets' `workers` (no per-target limits then); else the largest `workers` of the used targets; else 4. */
  workers?: number;
  /** `--max-retries`; wins over a target's `max_retries`; default 2. */
  maxRetries?: number;
  /** How hints name `workers` and `maxRetries`; default `LIBRARY_OPTION_NAMES`. */
  optionNames?: OptionNames;
  /** Backoff timing; tests shorten it. */
  retryPolicy?: Partial<Omit<RetryPolicy, 'maxRetries'>>;
  /** Which repeat of `--repeat N` this run is (1-based); passed to providers as `request.repeat`. */
  repeat?: number;
  /** `--threshold`; overrides the eval file's `execution.threshold`. */
  threshold?: number;
  providerContext?: ProviderContext;
  /**
   * Creates every provider the run needs instead of the registry (`--dry-run` uses the
   * mock; `--repeat` shares providers between its runs): `role` is `'target'` for a
   * target cases run against, `'judge'` for a judge target graders ask; `context` is
   * the run's `providerContext` as providers must get it (its `log` masks secrets).
   * The run closes each provider it got from here when it ends.
   */
  createProvider?: (
    target: ResolvedTarget,
    role: ProviderRole,
    context: ProviderContext | undefined,
  ) => Provider;
  /** Stops scheduling cases and aborts running ones. */
  signal?: AbortSignal;
  /**
   * `--budget-usd`: once the results' cost (agent and judges) reaches `limitUsd`, no
   * further case starts (running ones finish). The run adds what each result cost to
   * `spentUsd`; share one object between runs that share the budget (`--repeat`).
   */
  budget?: RunBudget;
  /** Something the user should know that does not stop the run. */
  onWarning?: (message: string) => void;
  /** Called with each case's prompt once it is built, before the provider sees it. */
  onPrompt?: (
    evalCase: EvalCase,
    prompt: BuiltPrompt,
    target: ResolvedTarget,
  ) => void | Promise<void>;
  /** Called once per provider call of a case, as it ends. */
  onAttempt?: (record: AttemptRecord) => void | Promise<void>;
  /** Called once per finished case, as it finishes; awaited before the case's slot is freed. */
  onResult?: (result: EvaluationResult) => void | Promise<void>;
  /**
   * Keep every result for `RunOutcome.results` (default true). Large runs that
   * consume results through `onResult` turn it off so memory does not grow with them.
   */
  retainResults?: boolean;
  /** `--keep-workspaces`: keep every case's workspace, passing or not (default: only failed and errored). */
  keepWorkspaces?: boolean;
  /**
   * Names the run to workspace hooks (`AGENTV_RUN_ID`) and the folder its kept
   * workspaces go to; default a new id per call.
   */
  runId?: string;
  /** `--workspace-root`: the folder workspaces are made in (default: the system temp folder). */
  workspaceRoot?: string;
  /** Called with the path of each workspace kept, as it is kept. */
  onWorkspaceKept?: (path: string, result: EvaluationResult) => void;
  /**
   * Called once per case with a workspace, after it was graded and its workspace
   * released, with what the agent changed (masked like the result): `agentv eval`
   * saves the diff and file list beside the result file. `repeat` is the run's.
   */
  onWorkspaceChanges?: (record: WorkspaceChangesRecord) => void | Promise<void>;
  /**
   * The manager cases take their workspaces from, instead of one the run makes
   * (and closes at its end) when a planned case has a workspace. The run does
   * not close a manager it was given. `agentv grade --workspace` gives one that
   * hands out the kept workspace.
   */
  workspaces?: WorkspaceManager;
  /**
   * The runtime that starts the containers of workspaces with `docker:`
   * (`@agentv/sandbox-docker`'s, given by the app). A run with such a
   * workspace and no runtime stops before its first case.
   */
  sandboxRuntime?: SandboxRuntime;
  /**
   * The OTLP receiver of targets with `trace: { source: otlp }` (`@agentv/otel`'s,
   * given by the app). The run starts it before the first case and closes it at
   * its end; a run with such a target and no receiver stops before its first case.
   */
  traceIntake?: TraceIntake;
  /**
   * Reads the sessions and trace files cases name in `trace: { source, path }` (the app
   * gives one knowing Codex, Claude Code and OTLP/JSON). Such a case is answered from its
   * file and its target never called; without a reader the case errors.
   */
  recordedTraces?: RecordedTraceReader;
}

/** A run's spending limit and what was spent against it so far (US dollars). */
export interface RunBudget {
  limitUsd: number;
  spentUsd: number;
}

/** What `onWorkspaceChanges` is given. */
export interface WorkspaceChangesRecord {
  result: EvaluationResult;
  changes: FileChanges;
  /** Under `--repeat N`, the repeat (1-based). */
  repeat?: number;
}
