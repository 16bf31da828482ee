import { execFileSync } from 'node:child_process';
import {
  importNodeImage,
  importTestImage,
  missingForEngine,
  startTestEngine,
} from './docker-engine.js';

/** The engine a test run uses, or why there is none. */
export interface EngineForTests {
  /** `DOCKER_HOST` of the tests' engine; undefined when the docker tests skip. */
  host: string | undefined;
  /** Why they skip (undefined when they run). */
  skipReason: string | undefined;
  /** Stops the engine (and removes its data); nothing when there is none. */
  stop(): Promise<void>;
}

/** Whether the docker tests must run: under `CI` or with `AGENTV_REQUIRE_DOCKER=1`. */
export function dockerRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.AGENTV_REQUIRE_DOCKER === '1' || Boolean(env.CI);
}

/**
 * Starts one Docker engine of the tests' own and imports the busybox test
 * image, plus a Node-capable image under each of `nodeTags`. When this machine
 * cannot (not root, no dockerd, no busybox) the tests skip — unless
 * `dockerRequired()`, then it throws saying what is missing.
 */
export async function startEngineForTests(
  options: { nodeTags?: string[] } = {},
): Promise<EngineForTests> {
  const missing = missingForEngine();
  if (missing !== undefined) {
    if (dockerRequired()) {
      throw new Error(`the Docker tests must run (CI or AGENTV_REQUIRE_DOCKER=1), but ${missing}`);
    }
    return { host: undefined, skipReason: missing, stop: async () => undefined };
  }
  const engine = await startTestEngine();
  try {
    await importTestImage(engine);
    const [first, ...others] = options.nodeTags ?? [];
    if (first !== undefined) {
      await importNodeImage(engine, first);
      for (const tag of others) tagImage(engine.host, first, tag);
    }
  } catch (error) {
    await engine.stop();
    throw error;
  }
  return { host: engine.host, skipReason: undefined, stop: () => engine.stop() };
}

function tagImage(host: string, from: string, to: string): void {
  execFileSync('docker', ['tag', from, to], {
    env: { ...process.env, DOCKER_HOST: host },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}
