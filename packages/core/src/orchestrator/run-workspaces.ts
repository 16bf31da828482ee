import type { WorkspaceManager } from '../workspace/workspace-manager.js';
import type { RunEvaluationOptions } from './run-options.js';

/**
 * The workspace manager of a run: the one the options give, else a new one
 * when a planned case has a `workspace:` block, else none — a run without
 * workspaces does no workspace work at all.
 */
export function runWorkspaces(options: RunEvaluationOptions): {
  workspaces: WorkspaceManager | undefined;
  ownsWorkspaces: boolean;
} {
  if (options.workspaces !== undefined) {
    return { workspaces: options.workspaces, ownsWorkspaces: false };
  }
  if (!options.plan.cases.some((planned) => planned.evalCase.workspace !== undefined)) {
    return { workspaces: undefined, ownsWorkspaces: false };
  }
  return { workspaces: createRunWorkspaceManager(options), ownsWorkspaces: true };
}

function createRunWorkspaceManager(_options: RunEvaluationOptions): WorkspaceManager {
  throw new Error('workspace manager: waiting for the engine (wt-h15)');
}
