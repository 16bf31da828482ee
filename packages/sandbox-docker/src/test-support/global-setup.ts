import type { TestProject } from 'vitest/node';
import { startEngineForTests } from './engine-for-tests.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `DOCKER_HOST` of the tests' engine; undefined when the docker tests skip. */
    dockerHost: string | undefined;
    /** Why they skip. */
    dockerSkipReason: string | undefined;
  }
}

/**
 * One Docker engine for the package's whole test run, with the test image
 * imported once. The tests skip only when this machine cannot run it and
 * neither `CI` nor `AGENTV_REQUIRE_DOCKER=1` is set; then a missing piece fails.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const engine = await startEngineForTests();
  project.provide('dockerHost', engine.host);
  project.provide('dockerSkipReason', engine.skipReason);
  return () => engine.stop();
}
