import { ProviderError, type Sandbox } from '@agentv/core/provider-utils';
import type { AgentAdapter } from './agent-adapter.js';
import { compareVersions } from './agent-version.js';
import type { AgentProcess } from './run-agent.js';

/**
 * Starts the agent's CLI in `sandbox` (`docker exec`, no shell, in `/workspace`) with `env` added
 * to the sandbox's own, driven like a process of this machine. Rejects with an `AgentvError` when
 * the sandbox has no way to stream a process or its engine fails.
 */
export async function startInSandbox(
  adapter: AgentAdapter,
  sandbox: Sandbox,
  command: string[],
  env: Record<string, string>,
): Promise<AgentProcess> {
  if (sandbox.spawn === undefined) {
    throw new ProviderError(
      `${adapter.displayName} cannot run in this sandbox: its runtime cannot stream a process's output`,
      {
        retryable: false,
        hint: 'use workspace.docker (the Docker runtime streams), or remove the sandbox',
      },
    );
  }
  const process = await sandbox.spawn({ command, env, killGraceMs: 2_000 });
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    done: process.done.then((outcome) => ({
      ...(outcome.exitCode === undefined ? {} : { exitCode: outcome.exitCode }),
      ...(outcome.oomKilled && outcome.message !== undefined ? { message: outcome.message } : {}),
    })),
    kill: () => process.kill(),
  };
}

/**
 * `value` as a process in the sandbox sees it: a path under `hostRoot` (a folder of this machine
 * mounted in the sandbox) moved under `sandboxRoot`; anything else unchanged.
 */
export function sandboxPathOf(value: string, hostRoot: string, sandboxRoot: string): string {
  if (value === hostRoot) return sandboxRoot;
  if (value.startsWith(`${hostRoot}/`)) return `${sandboxRoot}${value.slice(hostRoot.length)}`;
  return value;
}

const checked = new WeakMap<Sandbox, Map<string, Promise<void>>>();

/**
 * Checks once per sandbox that `executable` runs inside it and is new enough (`--version`), as the
 * health check does on this machine: an image without the agent is a case error saying to install
 * it in the image.
 */
export function checkInSandbox(
  adapter: AgentAdapter,
  sandbox: Sandbox,
  executable: string,
  env: Record<string, string>,
): Promise<void> {
  let bySandbox = checked.get(sandbox);
  if (bySandbox === undefined) {
    bySandbox = new Map();
    checked.set(sandbox, bySandbox);
  }
  let check = bySandbox.get(executable);
  if (check === undefined) {
    check = readVersionInSandbox(adapter, sandbox, executable, env);
    bySandbox.set(executable, check);
  }
  return check;
}

async function readVersionInSandbox(
  adapter: AgentAdapter,
  sandbox: Sandbox,
  executable: string,
  env: Record<string, string>,
): Promise<void> {
  const outcome = await sandbox.exec({
    command: [executable, '--version'],
    env,
    timeoutMs: 30_000,
    maxStdoutBytes: 64 * 1024,
    maxStderrBytes: 64 * 1024,
  });
  if (outcome.exitCode !== 0) {
    // docker exec answers 126/127 (OCI runtime: not found / not executable) for a missing program.
    const missing =
      outcome.exitCode === 126 ||
      outcome.exitCode === 127 ||
      /not found|no such file|executable file/i.test(outcome.stderr);
    if (!missing) return;
    throw new ProviderError(
      `${adapter.displayName} is not installed in the sandbox's image: "${executable}" was not found there`,
      {
        retryable: false,
        hint: `install it in the image (RUN npm i -g ${adapter.npmPackage}) or mount it (workspace.docker.mounts) and set executable on the target to its path inside`,
      },
    );
  }
  const version = adapter.parseVersion(`${outcome.stdout}\n${outcome.stderr}`);
  if (version !== undefined && compareVersions(version, adapter.minVersion) < 0) {
    throw new ProviderError(
      `${adapter.displayName} ${version} in the sandbox's image is older than ${adapter.minVersion}, the oldest version AgentV runs`,
      {
        retryable: false,
        hint: `install a newer one in the image (RUN npm i -g ${adapter.npmPackage}@latest)`,
      },
    );
  }
}
