import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { EvaluatorError } from './evaluator-error.js';

/**
 * What is wrong with `value` as a path inside the workspace, written in an
 * eval file: absolute, leaving the workspace (`..`), or holding a NUL.
 * Undefined when it is fine. Paths use `/` (a `\` is read as one).
 */
export function workspacePathProblem(value: string): string | undefined {
  if (value.includes('\0')) return 'contains a NUL character';
  const posix = value.replaceAll('\\', '/');
  if (posix.startsWith('/') || /^[A-Za-z]:\//.test(posix)) {
    return 'is absolute; give a path relative to the workspace';
  }
  const normal = path.posix.normalize(posix);
  if (normal === '..' || normal.startsWith('../')) {
    return 'leaves the workspace; give a path inside it';
  }
  return undefined;
}

/** Where a path inside the workspace leads, symbolic links resolved. */
export type WorkspaceEntry =
  /** Something is there, inside the workspace; `real` is its absolute real path. */
  | { kind: 'inside'; real: string }
  /** Nothing is there (`danglingLink`: a symbolic link to nothing is). */
  | { kind: 'missing'; danglingLink?: string }
  /** A symbolic link on the way leads out of the workspace; it is not followed. */
  | { kind: 'outside'; real: string };

/**
 * Resolves `relative` (checked with `workspacePathProblem`) inside
 * `workspace`: symbolic links are resolved to learn where they lead, and one
 * that leads out of the workspace is reported, never read. Throws
 * `EvaluatorError` when the workspace itself is gone.
 */
export async function locateInWorkspace(
  workspace: string,
  relative: string,
): Promise<WorkspaceEntry> {
  let root: string;
  try {
    root = await realpath(workspace);
  } catch (error) {
    throw new EvaluatorError(
      `the case's workspace ${JSON.stringify(workspace)} cannot be read: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const joined = path.join(root, relative.replaceAll('\\', '/'));
  let real: string;
  try {
    real = await realpath(joined);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'ELOOP') throw error;
    const link = await lstat(joined).catch(() => undefined);
    return link?.isSymbolicLink() ? { kind: 'missing', danglingLink: joined } : { kind: 'missing' };
  }
  const inside = real === root || real.startsWith(`${root}${path.sep}`);
  return inside ? { kind: 'inside', real } : { kind: 'outside', real };
}
