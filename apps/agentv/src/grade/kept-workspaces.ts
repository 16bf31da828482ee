import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  WorkspaceCaseError,
  type WorkspaceCaseInfo,
  type WorkspaceLease,
  type WorkspaceManager,
} from '@agentv/core/internal';
import {
  readWorkspaceChanges,
  type WorkspaceChanges,
  type WorkspaceChangesFile,
  workspaceChangesFolder,
} from '@agentv/results';

/**
 * The workspaces `agentv grade` grades in: each recorded case's kept workspace
 * (`workspace.kept_at` of its line), with the changes the run saved beside the
 * result file (`<result file>.workspaces/`) as what changed — the baseline is
 * gone once the run ended, so what the agent changed is what the run measured,
 * not measured again. Nothing is copied, reset or removed: a kept workspace is
 * the user's. A case whose kept workspace is gone, or whose changes were not
 * saved, is an error saying so (`keptAtOf` undefined too: give such cases no
 * workspace instead).
 */
export async function keptWorkspaceManager(
  resultFile: string,
  keptAtOf: (info: WorkspaceCaseInfo) => string | undefined,
): Promise<WorkspaceManager> {
  const saved = await savedChangesByWorkspace(workspaceChangesFolder(resultFile));
  const kept: string[] = [];
  return {
    async acquire(_config, info) {
      const keptAt = keptAtOf(info);
      if (keptAt === undefined) {
        throw new WorkspaceCaseError(
          `case "${info.evalId}" has a workspace, but its result line names no kept workspace (workspace.kept_at)`,
          {
            hint: "graders that read the workspace need it: run the case again with agentv eval (use --keep-workspaces to keep passing cases' workspaces too)",
          },
        );
      }
      if (!existsSync(keptAt)) {
        throw new WorkspaceCaseError(
          `the kept workspace of case "${info.evalId}" is gone: ${keptAt}`,
          {
            hint: 'run the case again with agentv eval',
          },
        );
      }
      const changesFile = saved.get(path.resolve(keptAt));
      if (changesFile === undefined) {
        throw new WorkspaceCaseError(
          `no saved changes name the workspace of case "${info.evalId}" (${keptAt}) in ${workspaceChangesFolder(resultFile)}`,
          {
            hint: 'grade the result file agentv eval wrote, from where it wrote it: the changes are saved beside it',
          },
        );
      }
      let changes: Promise<WorkspaceChanges> | undefined;
      const lease: WorkspaceLease = {
        path: keptAt,
        changes: () => {
          changes ??= readWorkspaceChanges(changesFile);
          return changes;
        },
        // Kept workspaces stay as they are: they are the user's to remove.
        release: async () => {
          kept.push(keptAt);
          return { keptAt };
        },
      };
      return lease;
    },
    close: async () => {},
    kept: () => kept,
  };
}

/** Saved change files of a run, by the absolute path of the workspace each names as kept. */
async function savedChangesByWorkspace(folder: string): Promise<Map<string, string>> {
  const byWorkspace = new Map<string, string>();
  const names = await readdir(folder).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const file = path.join(folder, name);
    try {
      const saved = JSON.parse(await readFile(file, 'utf8')) as Partial<WorkspaceChangesFile>;
      if (typeof saved.kept_at === 'string') byWorkspace.set(path.resolve(saved.kept_at), file);
    } catch {
      // Not one of the run's files: nothing names a workspace in it.
    }
  }
  return byWorkspace;
}

/** True when two paths name the same folder as written (resolved, not through links). */
export function samePath(a: string, b: string): boolean {
  return path.resolve(a) === path.resolve(b);
}
