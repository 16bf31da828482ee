import type { CaseWorkspace, EvaluationContext } from './evaluator.js';
import { EvaluatorError } from './evaluator-error.js';

/** What to do about a workspace grader in a case without a workspace. */
export const NO_WORKSPACE_HINT =
  'add a `workspace:` block (`template: ./project` or `repos:`) to the eval file or to the case, so the agent works in a folder the grader can read';

/**
 * The case's workspace, for a grader of `type` that reads it. Throws
 * `EvaluatorError` when the case has none (`validate` reports that before
 * the run; this covers library calls and `grade` of a run without one).
 */
export function requireWorkspace(context: EvaluationContext, type: string): CaseWorkspace {
  if (context.workspace !== undefined) return context.workspace;
  throw new EvaluatorError(
    `the \`${type}\` grader needs a workspace, and case "${context.evalCase.id}" has none`,
    {
      hint: `${NO_WORKSPACE_HINT}; to re-grade a kept workspace, give \`agentv grade\` its folder with --workspace`,
    },
  );
}
