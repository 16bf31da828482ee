import type { CaseWorkspace } from '../evaluators/evaluator.js';
import type { BuiltPrompt } from '../prompt/build-prompt.js';
import type { Sandbox } from '../sandbox/sandbox-runtime.js';
import type { FileChanges } from '../workspace/file-changes.js';
import { isWorkspaceCaseError, isWorkspaceSetupError } from '../workspace/workspace-errors.js';
import type { WorkspaceCaseInfo, WorkspaceLease } from '../workspace/workspace-manager.js';
import type { CaseContext } from './case-context.js';
import { errorResult } from './case-steps.js';
import type { EvaluationResult } from './evaluation-result.js';
import { messageOf } from './failure-message.js';

/**
 * One case's hold on its workspace, from before its first provider call until
 * it is graded: `path` is where the agent works.
 */
export interface HeldWorkspace {
  readonly path: string;
  /** The container holding the workspace at `/workspace`, with `docker:`. */
  readonly sandbox?: Sandbox;
  /**
   * Before a retry: a `per_case` workspace is given back (not kept) and a fresh
   * one taken, so the next attempt does not start from what a failed one left
   * behind (`before_each` and `after_each` run again). A `shared` one is kept as it is.
   * Throws like `acquire`.
   */
  renew(): Promise<void>;
  /** What changed since the workspace was taken; computed once, later calls return the same. */
  changes(): Promise<FileChanges>;
  /**
   * Gives the workspace back — kept when the case failed or errored, or with
   * `keepWorkspaces` (never for a case an interrupt cut short, unless
   * `keepWorkspaces`) — and completes `result`: its `workspace` summary,
   * `onWorkspaceKept` and `onWorkspaceChanges`. `changes` are those the graders
   * saw; undefined when they could not be computed (the summary is then left out).
   */
  finish(result: EvaluationResult, changes: FileChanges | undefined): Promise<EvaluationResult>;
}

/**
 * Takes the case's workspace from the run's manager: after its prompt is built,
 * before its first provider call. A `before_each` hook that fails makes the case
 * an error naming the hook (returned as `{ error }`); a failed `before_all` (or
 * a source that cannot be set up) stops the run: the `WorkspaceSetupError` is
 * recorded on the run (no further case starts) and thrown.
 */
export async function holdWorkspace(
  context: CaseContext,
  prompt: BuiltPrompt,
): Promise<HeldWorkspace | { error: EvaluationResult }> {
  const { planned, run } = context;
  const config = planned.evalCase.workspace!;
  const manager = run.workspaces!;
  const info: WorkspaceCaseInfo = {
    evalId: planned.evalCase.id,
    evalFile: planned.evalCase.filePath,
    target: planned.target.name,
    input: prompt.question,
  };
  if (run.options.repeat !== undefined) info.repeat = run.options.repeat;
  if (planned.evalCase.vars !== undefined) info.vars = planned.evalCase.vars;

  const take = async (): Promise<WorkspaceLease> => {
    try {
      return await manager.acquire(config, info);
    } catch (error) {
      if (isWorkspaceSetupError(error)) run.stopped ??= error;
      throw error;
    }
  };
  let lease: WorkspaceLease;
  try {
    lease = await take();
  } catch (error) {
    if (!isWorkspaceCaseError(error)) throw error;
    return { error: errorResult(context, 0, messageOf(error), 'infra') };
  }
  let measured: Promise<FileChanges> | undefined;
  // False while no lease is held: a renewal gave the old one back and could not take a new one.
  let holding = true;
  return {
    get path() {
      return lease.path;
    },
    get sandbox() {
      return lease.sandbox;
    },
    async renew() {
      if (config.isolation === 'shared') return;
      measured = undefined;
      holding = false;
      await lease.release({ keep: false });
      lease = await take();
      holding = true;
    },
    changes() {
      if (!holding) return Promise.reject(new Error('the case holds no workspace'));
      measured ??= lease.changes();
      return measured;
    },
    async finish(result, changes) {
      const { options, masks } = run;
      const interrupted = options.signal?.aborted === true;
      const failed = !result.passed || result.error !== undefined;
      const keep = options.keepWorkspaces === true || (failed && !interrupted);
      let keptAt: string | undefined;
      try {
        if (holding) keptAt = (await lease.release({ keep })).keptAt;
        holding = false;
      } catch (error) {
        // An `after_each` hook or the clean-up failed: the case's outcome stands, the user is told.
        options.onWarning?.(
          `case "${planned.evalCase.id}": its workspace could not be released: ${messageOf(error)}`,
        );
      }
      if (changes !== undefined) {
        const summary: NonNullable<EvaluationResult['workspace']> = {
          filesChanged: changes.files.length,
          insertions: changes.insertions,
          deletions: changes.deletions,
        };
        if (keptAt !== undefined) summary.keptAt = keptAt;
        result.workspace = summary;
      }
      if (keptAt !== undefined) options.onWorkspaceKept?.(keptAt, result);
      if (changes !== undefined && options.onWorkspaceChanges !== undefined && !interrupted) {
        const mask = masks?.forTarget(planned.target.name);
        await options.onWorkspaceChanges({
          result: mask?.deep(result) ?? result,
          changes: mask?.deep(changes) ?? changes,
          ...(options.repeat === undefined ? {} : { repeat: options.repeat }),
        });
      }
      return result;
    },
  };
}

/** The workspace graders see, or the error result of a case whose changes cannot be computed. */
export async function workspaceForGraders(
  context: CaseContext,
  held: HeldWorkspace,
  attempts: number,
): Promise<CaseWorkspace | { error: EvaluationResult }> {
  try {
    const changes = await held.changes();
    const sandbox = held.sandbox;
    return sandbox === undefined
      ? { path: held.path, changes }
      : { path: held.path, changes, sandbox };
  } catch (error) {
    const result = errorResult(
      context,
      attempts,
      `could not tell what changed in the workspace ${held.path}: ${messageOf(error)}`,
      'infra',
    );
    return { error: await held.finish(result, undefined) };
  }
}

/** What changed in a workspace, for a case that ends without grading; undefined when it cannot be told. */
export async function changesIfKnown(held: HeldWorkspace): Promise<FileChanges | undefined> {
  try {
    return await held.changes();
  } catch {
    return undefined;
  }
}
