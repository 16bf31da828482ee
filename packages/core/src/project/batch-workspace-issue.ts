import type { Issue } from '../errors/input-issue.js';
import type { EvalCase } from '../eval-file/eval-case.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';

/**
 * The error of running a case with a per-case workspace on a target that
 * answers cases in batches (`provider_batching: true`): one agent process
 * answers the whole batch, so it cannot work in each case's own folder.
 * Undefined when the case has no workspace, a shared one, or the target
 * answers case by case. Placed at the case, naming the target.
 */
export function batchWorkspaceIssue(evalCase: EvalCase, target: ResolvedTarget): Issue | undefined {
  if (target.providerBatching !== true) return undefined;
  if (evalCase.workspace === undefined || evalCase.workspace.isolation === 'shared') {
    return undefined;
  }
  const issue: Issue = {
    severity: 'error',
    file: evalCase.filePath,
    caseId: evalCase.id,
    message: `target "${target.name}" answers cases in batches (provider_batching: true), and a batch cannot run per-case workspaces`,
    hint: `set \`isolation: shared\` in the workspace block (one workspace for every case, which the batch works in), or run target "${target.name}" case by case without \`provider_batching\``,
  };
  if (evalCase.line !== undefined) issue.line = evalCase.line;
  if (evalCase.column !== undefined) issue.column = evalCase.column;
  return issue;
}
