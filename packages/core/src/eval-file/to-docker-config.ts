import path from 'node:path';
import { parseMemorySize } from '../sandbox/memory-size.js';
import type { WorkspaceDocker } from '../workspace/workspace-config.js';
import type { WorkspaceDockerInput } from './workspace-schema.js';

/** A valid `docker:` block, resolved: defaults applied, paths absolute against `baseDir`. */
export function toDockerConfig(block: WorkspaceDockerInput, baseDir: string): WorkspaceDocker {
  const docker: WorkspaceDocker = {
    network: block.network ?? 'none',
    env: { ...block.env },
    mounts: (block.mounts ?? []).map((mount) => ({
      source: path.resolve(baseDir, mount.source),
      target: path.posix.normalize(mount.target),
      readOnly: mount.read_only ?? false,
    })),
    readOnly: block.read_only ?? true,
  };
  if (block.image !== undefined) docker.image = block.image;
  if (block.build !== undefined) docker.build = path.resolve(baseDir, block.build);
  if (block.memory !== undefined) {
    docker.memory = block.memory;
    const bytes = parseMemorySize(block.memory);
    if (bytes !== undefined) docker.memoryBytes = bytes;
  }
  if (block.cpus !== undefined) docker.cpus = block.cpus;
  if (block.user !== undefined) docker.user = block.user;
  if (block.timeout !== undefined) docker.timeoutSeconds = block.timeout;
  return docker;
}
