import { inject } from 'vitest';
import { createDockerRuntime } from '../create-docker-runtime.js';
import type { DockerRuntime } from '../docker-runtime.js';

/** `DOCKER_HOST` of the tests' engine, undefined when the docker tests skip. */
export const dockerHost = inject('dockerHost');

/** A runtime on the tests' engine (never the machine's own). */
export function testRuntime(): Promise<DockerRuntime> {
  return createDockerRuntime({ env: { DOCKER_HOST: dockerHost }, home: '/nonexistent' });
}
