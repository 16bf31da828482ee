import { isAbsolute, posix, relative, sep } from 'node:path';
import { SANDBOX_WORKSPACE } from '../sandbox/sandbox-runtime.js';
import type { WorkspaceDocker } from './workspace-config.js';

/**
 * Where folder `hostPath` of this machine is inside a sandbox whose workspace
 * is `workspace`: the same place under `/workspace`, or under a mount's
 * target; undefined when the sandbox cannot see it.
 */
export function sandboxPath(
  hostPath: string,
  workspace: string | undefined,
  docker: Pick<WorkspaceDocker, 'mounts'>,
): string | undefined {
  const roots = [
    ...(workspace === undefined ? [] : [{ source: workspace, target: SANDBOX_WORKSPACE }]),
    ...docker.mounts,
  ];
  for (const { source, target } of roots) {
    const inside = relative(source, hostPath);
    if (inside === '') return target;
    if (inside.startsWith('..') || isAbsolute(inside)) continue;
    return posix.join(target, inside.split(sep).join('/'));
  }
  return undefined;
}
