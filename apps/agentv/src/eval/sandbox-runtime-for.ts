import type { RunPlan } from '@agentv/core';
import type { SandboxRuntime } from '@agentv/core/provider-utils';

/**
 * The sandbox runtime of a run whose cases ask for containers
 * (`workspace.docker`): `@agentv/sandbox-docker`'s, loaded only then, so a run
 * without containers loads none of it. The engine is the one `docker` would
 * use (`DOCKER_HOST`, the current context); nothing is contacted here.
 */
export async function sandboxRuntimeFor(
  plan: RunPlan,
  env: Readonly<Record<string, string | undefined>>,
): Promise<SandboxRuntime | undefined> {
  if (!plan.cases.some((planned) => planned.evalCase.workspace?.docker !== undefined)) {
    return undefined;
  }
  const { createDockerRuntime } = await import('@agentv/sandbox-docker');
  return createDockerRuntime({ env });
}
