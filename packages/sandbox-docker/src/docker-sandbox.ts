import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { AgentvError } from '@agentv/core';
import type {
  Sandbox,
  SandboxExec,
  SandboxOutcome,
  SandboxProcess,
  SandboxSpawn,
} from '@agentv/core/provider-utils';
import type Docker from 'dockerode';
import tar from 'tar-fs';
import type { DockerEndpoint } from './docker-endpoint.js';
import { type ExecTarget, runExec } from './docker-exec.js';
import { spawnExec } from './docker-spawn.js';
import { engineError, engineMessage, isNotFound } from './engine-error.js';

/** Reads the memory cgroup's kill count with shell builtins only (v2, then v1). */
const READ_OOM_KILLS =
  'for f in /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control; do [ -r "$f" ] || continue; while read -r k v; do [ "$k" = oom_kill ] && echo "$v"; done < "$f"; exit 0; done; exit 0';

/** How long a failed call waits for the engine to record that its container stopped. */
const STOP_WAIT_MS = 2000;

/** One container made by `DockerRuntime.create`. */
export class DockerSandbox implements Sandbox {
  private oomKillsSeen = 0;
  private destroyed?: Promise<void>;

  constructor(
    private readonly container: Docker.Container,
    private readonly memoryLabel: string | undefined,
    private readonly endpoint: DockerEndpoint,
  ) {}

  get id(): string {
    return this.container.id;
  }

  /** Rejects only when the engine fails (gone, container removed): an `AgentvError` naming it. */
  async exec(request: SandboxExec): Promise<SandboxOutcome> {
    try {
      return await runExec(this.execTarget(), request);
    } catch (error) {
      throw await this.failure(error, 'running');
    }
  }

  /** Rejects only when the engine fails (gone, container removed): an `AgentvError` naming it. */
  async spawn(request: SandboxSpawn): Promise<SandboxProcess> {
    try {
      return await spawnExec(this.execTarget(), request);
    } catch (error) {
      throw await this.failure(error, 'starting');
    }
  }

  /**
   * The error for an engine call on this container that failed. A container
   * that stopped under the call (its main process ended) is said as such,
   * whichever of the engine's answers came first (409 "is not running", 500
   * "container not running", the exec's own end): the engine's state is
   * asked, waiting up to 2 s for a stop the engine has not recorded yet. An
   * engine that is gone, or a container still running, keeps the engine's words.
   */
  private async failure(error: unknown, verb: 'running' | 'starting'): Promise<Error> {
    const short = this.id.slice(0, 12);
    const refused = engineError(error, this.endpoint, `${verb} a process in container ${short}`);
    const doing = `${verb} a process in it`;
    let code: unknown;
    let removing = false;
    try {
      const ended = (await this.container.wait({
        condition: 'not-running',
        abortSignal: AbortSignal.timeout(STOP_WAIT_MS),
      })) as { StatusCode?: unknown };
      code = ended.StatusCode;
      removing = (await this.container.inspect()).State.Status === 'removing';
    } catch (waitError) {
      if (!isNotFound(waitError)) return refused;
      removing = true;
    }
    if (removing) {
      return new AgentvError(`container ${short} was removed while ${doing}`, {
        hint:
          this.destroyed === undefined
            ? 'something outside AgentV removed it (`docker rm`); the next case of this workspace gets a new container'
            : 'AgentV removed it: the run is ending',
        cause: error,
      });
    }
    return new AgentvError(
      `container ${short} is not running: it stopped${typeof code === 'number' ? ` (exit code ${code})` : ''} while ${doing}`,
      {
        hint: "its main process ended: a process of the case may have killed PID 1, or the image's command exits; the next case of this workspace gets a new container",
        cause: error,
      },
    );
  }

  private execTarget(): ExecTarget {
    return {
      container: this.container,
      killedForMemory: () => this.killedForMemory(),
      ...(this.memoryLabel === undefined ? {} : { memoryLabel: this.memoryLabel }),
    };
  }

  async copyIn(source: string, target: string): Promise<void> {
    try {
      const archive = tar.pack(path.dirname(source), { entries: [path.basename(source)] });
      await this.container.putArchive(archive, { path: target });
    } catch (error) {
      throw copyError(`copying ${source} into the sandbox (${target})`, error);
    }
  }

  /** `source` must be in `/workspace`, a mount or the image: the engine cannot read `/tmp` (a tmpfs). */
  async copyOut(source: string, target: string): Promise<void> {
    try {
      await mkdir(target, { recursive: true });
      const archive = await this.container.getArchive({ path: source });
      await pipeline(archive, tar.extract(target));
    } catch (error) {
      throw copyError(`copying ${source} out of the sandbox`, error);
    }
  }

  destroy(): Promise<void> {
    this.destroyed ??= this.container.remove({ force: true, v: true }).catch((error: unknown) => {
      if (!isNotFound(error) && (error as { statusCode?: unknown }).statusCode !== 409) throw error;
    });
    return this.destroyed;
  }

  /**
   * Whether the memory cgroup killed a process since the last call: its
   * `oom_kill` count went up; where the count cannot be read, the engine's
   * `State.OOMKilled`. Rejects when the container stopped: the process died
   * with it, which `failure` says.
   */
  private async killedForMemory(): Promise<boolean> {
    const outcome = await runExec(
      { container: this.container, killedForMemory: async () => false },
      { command: READ_OOM_KILLS, cwd: '/' },
    );
    // The reader exits 0 wherever it runs. In a container that is stopping the runtime answers
    // instead ("cannot exec in a stopped state", exit 126): the process was killed with it.
    if (outcome.exitCode !== 0) {
      throw new Error(outcome.stdout.trim() || `the container could not start a process`);
    }
    const count = Number.parseInt(outcome.stdout.trim(), 10);
    if (Number.isInteger(count)) {
      const more = count > this.oomKillsSeen;
      this.oomKillsSeen = count;
      return more;
    }
    const info = await this.container.inspect();
    if (!info.State.Running) throw new Error(`the container is ${info.State.Status}`);
    return info.State.OOMKilled === true;
  }
}

function copyError(doing: string, error: unknown): AgentvError {
  return new AgentvError(`${doing} failed: ${engineMessage(error)}`, {
    hint: 'check that the path exists; files the engine can copy are in /workspace, mounts and the image (not /tmp)',
    cause: error,
  });
}
