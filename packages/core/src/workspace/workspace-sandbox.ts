import { mkdir } from 'node:fs/promises';
import {
  SANDBOX_EXCHANGE,
  type Sandbox,
  type SandboxExec,
  type SandboxOutcome,
  type SandboxProcess,
  type SandboxSpawn,
  type SandboxSpec,
} from '../sandbox/sandbox-runtime.js';
import type { SandboxImages } from './sandbox-images.js';
import type { WorkspaceDocker } from './workspace-config.js';
import { WorkspaceCaseError } from './workspace-errors.js';

/** Default most processes one sandbox may hold: a fork bomb ends as its case's error. */
export const DEFAULT_PIDS_LIMIT = 512;

/** A sandbox the workspace manager started, and whether it still works. */
export interface WorkspaceSandbox extends Sandbox {
  /**
   * False once an exec could not reach it, or a process in it was killed (for
   * memory, by a signal) and a probe then failed: the manager starts another
   * for the next case.
   */
  usable(): Promise<boolean>;
}

/** What `startSandbox` needs. */
export interface StartSandbox {
  docker: WorkspaceDocker;
  images: SandboxImages;
  /** The folder mounted at `/workspace`. */
  workspace: string;
  /** A folder of the run's, made here and mounted at `SANDBOX_EXCHANGE`. */
  exchange: string;
  runId: string;
  signal?: AbortSignal;
}

/**
 * Starts the sandbox of one workspace: the image of `docker`, its limits,
 * network (default none), user, env, mounts and read-only root, the workspace
 * at `/workspace` and an exchange folder at `/agentv`. Rejects with a
 * `WorkspaceCaseError` naming the engine's reason.
 */
export async function startSandbox(options: StartSandbox): Promise<WorkspaceSandbox> {
  const { docker, images } = options;
  let sandbox: Sandbox;
  try {
    await mkdir(options.exchange, { recursive: true, mode: 0o777 });
    const image = await images.prepare(docker, options.signal);
    sandbox = await images.runtime.create(sandboxSpec(options, image), options.signal);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const hint = (error as { hint?: unknown }).hint;
    throw new WorkspaceCaseError(
      `could not start the ${images.runtime.kind} container of workspace ${options.workspace}: ${reason}`,
      {
        hint: typeof hint === 'string' ? hint : `check the ${images.runtime.kind} engine`,
        cause: error,
      },
    );
  }
  const longest = docker.timeoutSeconds === undefined ? undefined : docker.timeoutSeconds * 1000;
  return watched(sandbox, { hostPath: options.exchange, path: SANDBOX_EXCHANGE }, longest);
}

/** The runtime's spec for a workspace's sandbox. */
export function sandboxSpec(
  options: Pick<StartSandbox, 'docker' | 'workspace' | 'exchange' | 'runId'>,
  image: string,
): SandboxSpec {
  const { docker } = options;
  const spec: SandboxSpec = {
    image,
    workspace: options.workspace,
    mounts: [
      { source: options.exchange, target: SANDBOX_EXCHANGE },
      ...docker.mounts.map((mount) => ({ ...mount })),
    ],
    network: docker.network,
    env: { ...docker.env },
    readOnlyRoot: docker.readOnly,
    pidsLimit: DEFAULT_PIDS_LIMIT,
    runId: options.runId,
  };
  if (docker.memoryBytes !== undefined) spec.memoryBytes = docker.memoryBytes;
  if (docker.cpus !== undefined) spec.cpus = docker.cpus;
  if (docker.user !== undefined) spec.user = docker.user;
  return spec;
}

/**
 * `sandbox` with its exchange folder and `docker.timeout` as every exec's
 * longest time, remembering whether it may have stopped working.
 */
function watched(
  sandbox: Sandbox,
  exchange: { hostPath: string; path: string },
  longestMs: number | undefined,
): WorkspaceSandbox {
  let broken = false;
  let suspect = false;
  const spawn = sandbox.spawn?.bind(sandbox);
  return {
    id: sandbox.id,
    exchange,
    ...(spawn === undefined
      ? {}
      : {
          async spawn(request: SandboxSpawn): Promise<SandboxProcess> {
            let started: SandboxProcess;
            try {
              started = await spawn(request);
            } catch (error) {
              broken = true;
              throw error;
            }
            // Killed for memory: the container may have gone with it. (A kill of ours is no news.)
            void started.done.then((outcome) => {
              if (outcome.oomKilled) suspect = true;
            });
            return started;
          },
        }),
    async exec(request: SandboxExec): Promise<SandboxOutcome> {
      try {
        // `docker.timeout` caps every process, whatever its own limit.
        const capped =
          longestMs === undefined ||
          (request.timeoutMs !== undefined && request.timeoutMs <= longestMs)
            ? request
            : { ...request, timeoutMs: longestMs };
        const outcome = await sandbox.exec(capped);
        // Killed (for memory, by a signal): the container itself may have gone with it. A
        // timed-out process whose group could not be killed inside takes its container too.
        const killed =
          outcome.exitCode === undefined
            ? !outcome.timedOut && !outcome.aborted
            : outcome.exitCode > 128;
        if (outcome.oomKilled || killed || outcome.timedOut) suspect = true;
        return outcome;
      } catch (error) {
        broken = true;
        throw error;
      }
    },
    copyIn: (source, target) => sandbox.copyIn(source, target),
    copyOut: (source, target) => sandbox.copyOut(source, target),
    destroy: () => sandbox.destroy(),
    async usable() {
      if (broken) return false;
      if (!suspect) return true;
      suspect = false;
      try {
        const probe = await sandbox.exec({ command: ['true'], cwd: '/', timeoutMs: 30_000 });
        broken = probe.exitCode !== 0;
      } catch {
        broken = true;
      }
      return !broken;
    },
  };
}
