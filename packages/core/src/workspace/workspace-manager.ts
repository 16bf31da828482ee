import type { Sandbox } from '../sandbox/sandbox-runtime.js';
import type { FileChanges } from './file-changes.js';
import type { WorkspaceConfig } from './workspace-config.js';

/** Who a hook runs for: hooks get it as environment variables and as JSON on stdin. */
export interface WorkspaceCaseInfo {
  evalId: string;
  /** Absolute path of the case's eval file. */
  evalFile: string;
  target: string;
  /** Under `--repeat N`, 1-based. */
  repeat?: number;
  /** The case's prompt as one string (upstream's `case_input`). */
  input?: string;
  /** The case's `vars` (upstream's `case_metadata`). */
  vars?: Record<string, unknown>;
}

/** One case's hold on a workspace: acquired before the agent runs, released after grading. */
export interface WorkspaceLease {
  /** Absolute path of the workspace: the agent's working directory. */
  readonly path: string;
  /**
   * The sandbox the workspace is mounted into (at `/workspace`) when its
   * config has `docker:`: hooks, the agent and in-sandbox graders run there.
   */
  readonly sandbox?: Sandbox;
  /** What changed since the lease was taken (after `before_each` ran). */
  changes(): Promise<FileChanges>;
  /**
   * Runs `after_each`, then keeps the workspace (`keep`: a failed or errored
   * case, or `--keep-workspaces`) or returns it to its pool / removes it.
   * `keptAt` is where a kept workspace now is.
   */
  release(options: { keep: boolean }): Promise<{ keptAt?: string }>;
}

/**
 * Owns every workspace of one run: caches of cloned repositories, pools, temp
 * copies and hooks. `close` leaves nothing behind but kept workspaces.
 */
export interface WorkspaceManager {
  /**
   * A workspace for one case: a pooled slot reset to its pristine state, or a
   * fresh copy; `before_all` of the config ran once before (a failure throws
   * `WorkspaceSetupError`, which stops the run), `before_each` ran in it (a
   * failure throws `WorkspaceCaseError`, which makes the case an error).
   */
  acquire(config: WorkspaceConfig, info: WorkspaceCaseInfo): Promise<WorkspaceLease>;
  /** Runs `after_all` of every config used, removes pools, caches and copies not kept. */
  close(): Promise<void>;
  /** Workspaces kept so far (absolute paths), in the order they were kept. */
  kept(): string[];
}
