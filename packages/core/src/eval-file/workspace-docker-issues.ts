import { MIN_MEMORY_BYTES, parseMemorySize } from '../sandbox/memory-size.js';
import { isRecord } from '../util/records.js';
import type { Report, UnknownKeys } from './workspace-issue-reporters.js';
import { workspaceKeys } from './workspace-schema.js';

const NETWORK_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/**
 * Problems of a `docker:` mapping its schema cannot see, found without
 * contacting an engine: `image` xor `build`, the memory format, network
 * names (never the host's), mount targets, unknown keys; in a dataset record
 * the whole block (a build runs the Dockerfile's commands).
 */
export function dockerIssues(
  docker: Record<string, unknown>,
  datasetRecord: boolean,
  report: Report,
  unknownKeys: UnknownKeys,
): void {
  const at = ['docker'];
  if (datasetRecord) {
    report(
      'error',
      at,
      undefined,
      ': a dataset record cannot choose a container (a build runs the commands of its Dockerfile)',
      "declare `docker:` in the eval file's `workspace:`, which applies to every record",
    );
    return;
  }
  unknownKeys(docker, at, workspaceKeys().docker);
  const hasImage = docker.image !== undefined;
  const hasBuild = docker.build !== undefined;
  if (hasImage === hasBuild) {
    report(
      'error',
      at,
      undefined,
      hasImage ? ': has both `image` and `build`' : ' names no image',
      hasImage
        ? 'keep one: `image:` an image the engine has, or `build:` a Dockerfile'
        : 'add `image: <name:tag>` (an image the engine has) or `build: ./Dockerfile`',
    );
  }
  if (typeof docker.memory === 'string') {
    const bytes = parseMemorySize(docker.memory);
    if (bytes === undefined) {
      report(
        'error',
        [...at, 'memory'],
        undefined,
        ` "${docker.memory}" is not a memory size`,
        'write a number and a unit, b, k, m or g: `memory: 512m`, `memory: 2g`',
      );
    } else if (bytes < MIN_MEMORY_BYTES) {
      report(
        'error',
        [...at, 'memory'],
        undefined,
        ` "${docker.memory}" is below Docker's smallest limit, 6m`,
        'give the container at least `memory: 64m`',
      );
    }
  }
  if (typeof docker.network === 'string') {
    const network = docker.network;
    if (network === 'host' || network.startsWith('container:')) {
      report(
        'error',
        [...at, 'network'],
        undefined,
        ` "${network}" would share ${network === 'host' ? "this machine's" : "another container's"} network`,
        'use `none` (the default), `bridge`, or a network made for the eval (`docker network create`)',
      );
    } else if (!NETWORK_NAME.test(network)) {
      report(
        'error',
        [...at, 'network'],
        undefined,
        ` "${network}" is not a network name`,
        'use `none` (the default), `bridge`, or the name of a Docker network',
      );
    }
  }
  if (Array.isArray(docker.mounts)) {
    docker.mounts.forEach((mount, index) => {
      if (!isRecord(mount)) return;
      const mountAt = [...at, 'mounts', index];
      unknownKeys(mount, mountAt, workspaceKeys().mount);
      const target = mount.target;
      if (typeof target !== 'string') return;
      if (!target.startsWith('/')) {
        report(
          'error',
          [...mountAt, 'target'],
          undefined,
          ` "${target}" is not an absolute path`,
          'write where the folder appears in the container, e.g. `target: /data`',
        );
      } else if (/^\/workspace(\/|$)/.test(target) || /^\/tmp\/?$/.test(target)) {
        report(
          'error',
          [...mountAt, 'target'],
          undefined,
          ` "${target}" is where AgentV mounts ${target.startsWith('/tmp') ? '/tmp' : 'the workspace'}`,
          'mount it elsewhere, e.g. `target: /data`; to put files into the workspace use `template:`',
        );
      }
    });
  }
}
