import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { displayPath, UsageError } from '@agentv/core/internal';
import { describeWriteError } from './write-failure.js';

/**
 * `--workspace-root DIR` as an absolute folder the run can make workspaces in:
 * an existing folder must be writable; a missing one is created (with its
 * parents), which is the test of whether it can be. Throws a `UsageError`
 * naming the flag otherwise, before any case runs.
 */
export async function resolveWorkspaceRoot(value: string, cwd: string): Promise<string> {
  const root = path.resolve(cwd, value);
  const shown = displayPath(cwd, root);
  const refuse = (problem: string) =>
    new UsageError(`cannot use --workspace-root ${shown}: ${problem}`, {
      hint: 'pass --workspace-root a folder you can write to (it is created when missing), or leave it out to use the system temp folder',
    });
  const info = await stat(root).catch(() => undefined);
  if (info === undefined) {
    await mkdir(root, { recursive: true }).catch((error: unknown) => {
      throw refuse(`it cannot be created: ${describeWriteError(error)}`);
    });
    return root;
  }
  if (!info.isDirectory()) throw refuse('it is not a folder');
  const writable = await access(root, constants.W_OK | constants.X_OK).then(
    () => true,
    () => false,
  );
  if (!writable) throw refuse('it is not writable');
  return root;
}
