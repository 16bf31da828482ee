import { lchown, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sandbox } from '../sandbox/sandbox-runtime.js';
import { WorkspaceCaseError } from './workspace-errors.js';

/** Who a workspace belongs to inside its container. */
export interface WorkspaceOwner {
  uid: number;
  gid: number;
}

const NUMERIC_USER = /^(\d+)(?::(\d+))?$/;

/**
 * The owner the workspace needs for `docker.user` to write it: `uid:gid` as
 * written; `uid` alone with the same number as group; a user name (or
 * `name:group`) resolved inside `sandbox` with `id -u` / `id -g` (which run as
 * that user). Rejects with a `WorkspaceCaseError` when a name cannot be resolved.
 */
export async function workspaceOwner(user: string, sandbox: Sandbox): Promise<WorkspaceOwner> {
  const numeric = NUMERIC_USER.exec(user);
  if (numeric !== null) {
    const uid = Number(numeric[1]);
    return { uid, gid: numeric[2] === undefined ? uid : Number(numeric[2]) };
  }
  const outcome = await sandbox.exec({ command: 'id -u && id -g', cwd: '/', timeoutMs: 30_000 });
  const [uid, gid] = outcome.stdout.trim().split(/\s+/).map(Number);
  if (outcome.exitCode !== 0 || !Number.isInteger(uid) || !Number.isInteger(gid)) {
    throw new WorkspaceCaseError(
      `could not find the ids of docker.user "${user}" in its container (id -u: ${outcome.stderr.trim() || outcome.stdout.trim() || `exit ${outcome.exitCode}`})`,
      {
        hint: 'write docker.user as a numeric uid:gid (e.g. 1000:1000), or use an image that has `id` and that user',
      },
    );
  }
  return { uid: uid as number, gid: gid as number };
}

/**
 * Gives every file and folder under `dir` (itself included, symlinks not
 * followed) to `owner`, so a container running as that user can write the
 * workspace AgentV copied as root. Nothing to do when AgentV runs as that uid.
 */
export async function ownTree(dir: string, owner: WorkspaceOwner): Promise<void> {
  if (process.getuid?.() === owner.uid) return;
  await lchown(dir, owner.uid, owner.gid);
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    await lchown(join(entry.parentPath, entry.name), owner.uid, owner.gid);
  }
}
