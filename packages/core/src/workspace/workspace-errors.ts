import { AgentvError, isAgentvError } from '../errors/agentv-error.js';

/**
 * A workspace could not be set up for the run (a `before_all` hook failed, a
 * repository could not be cloned or has no such commit, the template is gone):
 * the run stops with this message, which names the hook or source and quotes
 * the hook's stderr.
 */
export class WorkspaceSetupError extends AgentvError {
  override readonly kind = 'workspace-setup';
}

/**
 * One case's workspace could not be prepared (its `before_each` hook failed or
 * timed out): the case is an error with this message, the run goes on.
 */
export class WorkspaceCaseError extends AgentvError {
  override readonly kind = 'workspace-case';
}

export function isWorkspaceSetupError(error: unknown): error is WorkspaceSetupError {
  return isAgentvError(error, 'workspace-setup');
}

export function isWorkspaceCaseError(error: unknown): error is WorkspaceCaseError {
  return isAgentvError(error, 'workspace-case');
}
