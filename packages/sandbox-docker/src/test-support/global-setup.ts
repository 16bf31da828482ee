import type { TestProject } from 'vitest/node';
import { importTestImage, missingForEngine, startTestEngine } from './docker-engine.js';

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
  const missing = missingForEngine();
  const required = process.env.AGENTV_REQUIRE_DOCKER === '1' || Boolean(process.env.CI);
  if (missing !== undefined) {
    if (required) {
      throw new Error(`the Docker tests must run (CI or AGENTV_REQUIRE_DOCKER=1), but ${missing}`);
    }
    project.provide('dockerHost', undefined);
    project.provide('dockerSkipReason', missing);
    return async () => undefined;
  }
  const engine = await startTestEngine();
  try {
    await importTestImage(engine);
  } catch (error) {
    await engine.stop();
    throw error;
  }
  project.provide('dockerHost', engine.host);
  project.provide('dockerSkipReason', undefined);
  return () => engine.stop();
}
