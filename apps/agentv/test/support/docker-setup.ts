import { startEngineForTests } from '@agentv/sandbox-docker/test-support';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `DOCKER_HOST` of the tests' engine; undefined when the docker tests skip. */
    dockerHost: string | undefined;
    /** Why they skip. */
    dockerSkipReason: string | undefined;
  }
}

/** The image name the example's docker eval file asks for; the tests' Node image is tagged so. */
export const NODE_IMAGE = 'node:20-slim';

/**
 * One Docker engine for the docker end-to-end tests (the engine and images of
 * `@agentv/sandbox-docker`'s own tests): the busybox image and a Node image
 * tagged `node:20-slim`. They skip when this machine cannot start it and
 * neither `CI` nor `AGENTV_REQUIRE_DOCKER=1` is set, and with
 * `AGENTV_SKIP_EXTERNAL_PROGRAMS=1`.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // `.ci/run`'s second pass: @agentv/sandbox-docker's own tests run the Docker code on that
  // Node; these, which drive the CLI through it, ran in the first pass.
  if (process.env.AGENTV_SKIP_EXTERNAL_PROGRAMS === '1') {
    project.provide('dockerHost', undefined);
    project.provide('dockerSkipReason', 'AGENTV_SKIP_EXTERNAL_PROGRAMS=1');
    return async () => undefined;
  }
  const engine = await startEngineForTests({ nodeTags: [NODE_IMAGE] });
  project.provide('dockerHost', engine.host);
  project.provide('dockerSkipReason', engine.skipReason);
  return () => engine.stop();
}
