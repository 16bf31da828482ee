import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgentvError } from '@agentv/core';
import type { SandboxImage, SandboxRuntime, SandboxSpec } from '@agentv/core/provider-utils';
import Docker from 'dockerode';
import tar from 'tar-fs';
import { readBuildContext } from './build-context.js';
import type { DockerEndpoint } from './docker-endpoint.js';
import { DockerSandbox } from './docker-sandbox.js';
import { engineError, engineMessage, isNotFound } from './engine-error.js';
import { formatMemory } from './format-memory.js';
import { sweepContainers } from './sweep-containers.js';

/** Most processes in one container unless the spec says otherwise: a fork bomb stops there. */
export const DEFAULT_PIDS_LIMIT = 512;

/** Labels on every container AgentV makes; `sweep` reads them. */
export const LABELS = { run: 'agentv.run', pid: 'agentv.pid', host: 'agentv.host' } as const;

/** A sandbox runtime on one Docker engine. */
export class DockerRuntime implements SandboxRuntime {
  readonly kind = 'docker';
  private readonly docker: Docker;

  constructor(readonly endpoint: DockerEndpoint) {
    this.docker = new Docker(connectOptions(endpoint));
  }

  async check(image?: SandboxImage): Promise<void> {
    await this.call('checking the engine (ping)', () => this.docker.ping());
    if (image !== undefined && 'image' in image) await this.imageExists(image.image);
  }

  async prepare(image: SandboxImage, signal?: AbortSignal): Promise<string> {
    if ('image' in image) {
      await this.imageExists(image.image);
      return image.image;
    }
    const context = await readBuildContext(image.build);
    const exists = await this.call(`looking for image ${context.tag}`, () =>
      this.docker
        .getImage(context.tag)
        .inspect()
        .then(
          () => true,
          (error: unknown) => (isNotFound(error) ? false : Promise.reject(error)),
        ),
    );
    if (exists) return context.tag;
    const archive = tar.pack(context.dir);
    const stream = await this.call(`building ${image.build}`, () =>
      this.docker.buildImage(archive, {
        t: context.tag,
        dockerfile: context.dockerfile,
        rm: true,
        forcerm: true,
        networkmode: 'none',
        ...(signal === undefined ? {} : { abortSignal: signal }),
      }),
    );
    const log: string[] = [];
    let failure: string | undefined;
    await new Promise<void>((resolve, reject) => {
      this.docker.modem.followProgress(
        stream,
        (error: Error | null) => {
          if (error !== null) reject(error);
          else if (failure !== undefined) reject(new Error(failure));
          else resolve();
        },
        // A failed step arrives as an event with `error`; the stream itself ends normally.
        (event: { stream?: string; error?: string }) => {
          if (typeof event.stream === 'string') log.push(event.stream);
          if (typeof event.error === 'string') failure ??= event.error;
        },
      );
    }).catch((error: unknown) => {
      const last = log.join('').trim().split('\n').slice(-5).join('\n');
      throw new AgentvError(
        `building the image of ${image.build} failed: ${engineMessage(error)}`,
        {
          hint: `fix the Dockerfile; the end of the build log:\n${last}`,
        },
      );
    });
    return context.tag;
  }

  async create(spec: SandboxSpec, _signal?: AbortSignal): Promise<DockerSandbox> {
    const readOnly = spec.readOnlyRoot ?? true;
    const binds = [
      ...(spec.workspace === undefined ? [] : [`${spec.workspace}:/workspace:rw`]),
      ...(spec.mounts ?? []).map(
        (mount) => `${mount.source}:${mount.target}:${mount.readOnly === true ? 'ro' : 'rw'}`,
      ),
    ];
    const hostConfig: Docker.HostConfig = {
      NetworkMode: spec.network ?? 'none',
      ReadonlyRootfs: readOnly,
      Tmpfs: { '/tmp': 'rw,exec,nosuid,mode=1777' },
      Binds: binds,
      Init: true,
      SecurityOpt: ['no-new-privileges'],
      PidsLimit: spec.pidsLimit ?? DEFAULT_PIDS_LIMIT,
    };
    if (spec.memoryBytes !== undefined) {
      hostConfig.Memory = spec.memoryBytes;
      hostConfig.MemorySwap = spec.memoryBytes;
    }
    if (spec.cpus !== undefined) hostConfig.NanoCpus = Math.round(spec.cpus * 1e9);
    const name = `agentv-${spec.runId.replace(/[^a-zA-Z0-9_.-]/g, '-').slice(0, 40)}-${randomBytes(4).toString('hex')}`;
    const options: Docker.ContainerCreateOptions = {
      name,
      Image: spec.image,
      Entrypoint: ['sleep'],
      Cmd: ['infinity'],
      WorkingDir: '/workspace',
      Env: Object.entries(spec.env ?? {}).map(([key, value]) => `${key}=${value}`),
      Labels: {
        ...spec.labels,
        [LABELS.run]: spec.runId,
        [LABELS.pid]: String(process.pid),
        [LABELS.host]: os.hostname(),
      },
      HostConfig: hostConfig,
      NetworkDisabled: hostConfig.NetworkMode === 'none',
    };
    if (spec.user !== undefined) options.User = spec.user;
    const container = await this.docker.createContainer(options).catch((error: unknown) => {
      if (isNotFound(error)) throw missingImage(spec.image);
      throw engineError(error, this.endpoint, `creating a container of ${spec.image}`);
    });
    const memory = spec.memoryBytes === undefined ? undefined : formatMemory(spec.memoryBytes);
    const sandbox = new DockerSandbox(container, memory, this.endpoint);
    try {
      await container.start();
    } catch (error) {
      await sandbox.destroy().catch(() => undefined);
      throw engineError(error, this.endpoint, `starting a container of ${spec.image}`);
    }
    return sandbox;
  }

  sweep(): Promise<number> {
    return this.call('removing containers of ended runs', () =>
      sweepContainers(this.docker, os.hostname()),
    );
  }

  private async imageExists(image: string): Promise<void> {
    await this.call(`looking for image ${image}`, () =>
      this.docker
        .getImage(image)
        .inspect()
        .catch((error: unknown) => {
          throw isNotFound(error) ? missingImage(image) : error;
        }),
    );
  }

  private async call<T>(doing: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw engineError(error, this.endpoint, doing);
    }
  }
}

function missingImage(image: string): AgentvError {
  return new AgentvError(`image "${image}" is not on this Docker engine (AgentV never pulls)`, {
    hint: `run \`docker pull ${image}\` once, or build it from a Dockerfile with \`build: ./Dockerfile\` instead of \`image:\``,
  });
}

function connectOptions(endpoint: DockerEndpoint): Docker.DockerOptions {
  if (endpoint.socketPath !== undefined) return { socketPath: endpoint.socketPath };
  const options: Docker.DockerOptions = {
    host: endpoint.hostname ?? 'localhost',
    port: endpoint.port ?? 2375,
    protocol: endpoint.protocol ?? 'http',
  };
  if (endpoint.tlsDir !== undefined) {
    const read = (name: string) => {
      try {
        return readFileSync(path.join(endpoint.tlsDir as string, name));
      } catch {
        return undefined;
      }
    };
    const [ca, cert, key] = [read('ca.pem'), read('cert.pem'), read('key.pem')];
    if (ca !== undefined) options.ca = ca;
    if (cert !== undefined) options.cert = cert;
    if (key !== undefined) options.key = key;
  }
  return options;
}
