import { AgentvError, isAgentvError } from '../errors/agentv-error.js';
import type { RunState } from './run-state.js';

/**
 * Before the first case of a run with `workspace.docker`: removes the
 * containers of AgentV processes that are gone, checks the engine answers and
 * makes every distinct image ready (an image missing from the engine, or a
 * build that fails, stops the run here, naming the case). A run that needs
 * containers and has no runtime stops here too.
 */
export async function prepareSandboxes(run: RunState): Promise<void> {
  const { options } = run;
  const inContainers = options.plan.cases.filter(
    (planned) => planned.evalCase.workspace?.docker !== undefined,
  );
  if (inContainers.length === 0) return;
  const images = run.sandboxImages;
  if (images === undefined) {
    const first = inContainers[0]!.evalCase;
    throw new AgentvError(
      `case "${first.id}" (${first.filePath}) has a workspace with docker:, but the run has no sandbox runtime to start containers`,
      {
        hint: 'pass `sandboxRuntime: await createDockerRuntime()` (from @agentv/sandbox-docker) to runEvaluation; `agentv eval` does it for you',
      },
    );
  }
  const { runtime } = images;
  const removed = await runtime.sweep();
  if (removed > 0) {
    options.onWarning?.(
      `removed ${removed} ${runtime.kind} container${removed === 1 ? '' : 's'} left by AgentV runs that were killed`,
    );
  }
  await runtime.check();
  const seen = new Set<string>();
  for (const { evalCase } of inContainers) {
    const docker = evalCase.workspace!.docker!;
    const key = docker.build ?? docker.image ?? '';
    if (seen.has(key)) continue;
    seen.add(key);
    try {
      await images.prepare(docker, options.signal);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new AgentvError(
        `case "${evalCase.id}" (${evalCase.filePath}): workspace.docker ${docker.build === undefined ? 'image' : 'build'}: ${reason}`,
        {
          hint:
            isAgentvError(error) && error.hint !== undefined
              ? error.hint
              : `check the ${runtime.kind} engine`,
          cause: error,
        },
      );
    }
  }
}
