import { randomBytes } from 'node:crypto';
import type { SandboxImages } from '../workspace/sandbox-images.js';
import type { WorkspaceManager } from '../workspace/workspace-manager.js';
import type { RunEvaluationOptions } from './run-options.js';

/**
 * The workspace manager of a run: the one the options give, else a new one
 * when a planned case has a `workspace:` block, else none — a run without
 * workspaces does no workspace work at all, and does not even load the engine.
 */
export async function runWorkspaces(options: RunEvaluationOptions): Promise<{
  workspaces: WorkspaceManager | undefined;
  ownsWorkspaces: boolean;
  sandboxImages: SandboxImages | undefined;
}> {
  // One pass over the cases for both questions: a run without workspaces reads each case once.
  let withWorkspace = false;
  let inContainers = false;
  const { cases } = options.plan;
  for (let index = 0; index < cases.length && !inContainers; index++) {
    const workspace = cases[index]!.evalCase.workspace;
    if (workspace === undefined) continue;
    withWorkspace = true;
    inContainers = workspace.docker !== undefined;
  }
  const sandboxImages =
    inContainers && options.sandboxRuntime !== undefined
      ? (await import('../workspace/sandbox-images.js')).createSandboxImages(options.sandboxRuntime)
      : undefined;
  if (options.workspaces !== undefined) {
    return { workspaces: options.workspaces, ownsWorkspaces: false, sandboxImages };
  }
  if (!withWorkspace) {
    return { workspaces: undefined, ownsWorkspaces: false, sandboxImages };
  }
  return {
    workspaces: await createRunWorkspaceManager(options, sandboxImages),
    ownsWorkspaces: true,
    sandboxImages,
  };
}

async function createRunWorkspaceManager(
  options: RunEvaluationOptions,
  sandboxes: SandboxImages | undefined,
): Promise<WorkspaceManager> {
  const { createWorkspaceManager } = await import('../workspace/create-workspace-manager.js');
  const expectedCases = new Map<string, number>();
  for (const { evalCase } of options.plan.cases) {
    const key = evalCase.workspace?.key;
    if (key !== undefined) expectedCases.set(key, (expectedCases.get(key) ?? 0) + 1);
  }
  return createWorkspaceManager({
    ...(sandboxes === undefined ? {} : { sandboxes }),
    expectedCases,
    env: options.providerContext?.env ?? process.env,
    runId: options.runId ?? `run-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`,
    ...(options.workspaceRoot === undefined ? {} : { root: options.workspaceRoot }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onWarning === undefined ? {} : { onLog: options.onWarning }),
  });
}
