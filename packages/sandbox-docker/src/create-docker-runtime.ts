import os from 'node:os';
import { resolveDockerEndpoint } from './docker-endpoint.js';
import { DockerRuntime } from './docker-runtime.js';

export interface DockerRuntimeOptions {
  /** Where `DOCKER_HOST`, `DOCKER_CONTEXT`, `DOCKER_CONFIG` are read; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Home folder holding `.docker/`; default the user's. */
  home?: string;
}

/**
 * A sandbox runtime on the Docker engine the `docker` command would use
 * (`DOCKER_HOST`, else the current docker context, else the default socket).
 * Nothing is contacted until the first call.
 */
export async function createDockerRuntime(
  options: DockerRuntimeOptions = {},
): Promise<DockerRuntime> {
  const endpoint = await resolveDockerEndpoint(
    options.env ?? process.env,
    options.home ?? os.homedir(),
  );
  return new DockerRuntime(endpoint);
}
