import path from 'node:path';
import type { EvaluationContext, Judge } from '../evaluators/evaluator.js';
import type { Provider } from '../provider/provider.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import type { SandboxImages } from '../workspace/sandbox-images.js';
import type { WorkspaceManager } from '../workspace/workspace-manager.js';
import type { RateLimiter } from './rate-limiter.js';
import type { ProviderRole, RunEvaluationOptions } from './run-options.js';
import type { RunSecretMasks } from './run-secret-masks.js';
import { runWorkspaces } from './run-workspaces.js';

/**
 * What one run of `runEvaluation` holds besides its plan and options: created once
 * per run and handed to every step of every case. Nothing about a run is kept
 * anywhere else, so two runs never share it, whatever options they were given.
 */
export interface RunState {
  /** The run's options, with what they hand out masked (see `withSecretsMasked`). */
  readonly options: RunEvaluationOptions;
  /** What the run masks in results; undefined when there is nothing to mask. */
  readonly masks: RunSecretMasks | undefined;
  /** The provider of each target cases run against, started before the first case. */
  readonly providers: Map<string, Provider>;
  /** Providers of judge targets no case runs against, started and health-checked with those. */
  readonly judgeProviders: Map<string, Provider>;
  /** Every provider the run created, in order, judges made on first use included: closed at its end. */
  readonly created: Provider[];
  /** One judge per judge target, made on first use. */
  readonly judges: Map<string, Judge>;
  /** Targets whose reply warnings were reported: the first reply with warnings of each is enough. */
  readonly warnedTargets: Set<string>;
  /** What graders warn through (see `graderWarnings`); undefined without `onWarning`. */
  readonly warnGrader: EvaluationContext['warn'];
  /**
   * Where cases with a `workspace:` block take their workspaces: the run's own
   * manager (closed at its end) or `options.workspaces`; undefined when no case has one.
   */
  readonly workspaces: WorkspaceManager | undefined;
  /** The run made `workspaces` and closes it when it ends. */
  readonly ownsWorkspaces: boolean;
  /** With `sandboxRuntime` and a case with `workspace.docker`: its images, prepared before the first case. */
  readonly sandboxImages: SandboxImages | undefined;
  /** Each target's pacing (`requests_per_minute`, `tokens_per_minute`, 429s), made on first need. */
  readonly limiters: Map<string, RateLimiter>;
  /** Set when a workspace could not be set up for the run: no further case starts, and the run throws it. */
  stopped?: unknown;
}

/** The state of a run that starts with `options` (already masked) and `masks`. */
export async function createRunState(
  options: RunEvaluationOptions,
  masks: RunSecretMasks | undefined,
): Promise<RunState> {
  return {
    options,
    masks,
    providers: new Map(),
    judgeProviders: new Map(),
    limiters: new Map(),
    created: [],
    judges: new Map(),
    warnedTargets: new Set(),
    warnGrader: graderWarnings(options.onWarning),
    ...(await runWorkspaces(options)),
  };
}

/**
 * Creates the provider of `target` for `role`, from the run's `createProvider` when it has
 * one, else the registry, and records it among the providers the run closes.
 */
export function openProvider(run: RunState, target: ResolvedTarget, role: ProviderRole): Provider {
  const { options } = run;
  const provider = options.createProvider
    ? options.createProvider(target, role, options.providerContext)
    : options.providerRegistry.create(target, options.providerContext);
  run.created.push(provider);
  return provider;
}

/**
 * The `warn` graders report through: `onWarning`, naming the case and its eval file,
 * for the first warning of each grader of an eval file in a run. One function per run
 * (a closure per case would be garbage for every case of a batch).
 */
function graderWarnings(
  onWarning: ((message: string) => void) | undefined,
): EvaluationContext['warn'] {
  if (onWarning === undefined) return undefined;
  const warned = new Set<string>();
  return (evalCase, grader, message) => {
    const key = `${evalCase.filePath}\u0000${grader}`;
    if (warned.has(key)) return;
    warned.add(key);
    onWarning(
      `case "${evalCase.id}" (${path.basename(evalCase.filePath)}): evaluator ${grader} ${message} (later warnings of this evaluator are not shown)`,
    );
  };
}
