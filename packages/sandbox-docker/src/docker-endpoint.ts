import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentvError } from '@agentv/core';

/** How to reach a Docker engine, and where that choice came from (for messages). */
export interface DockerEndpoint {
  /** `unix:///var/run/docker.sock`, `tcp://host:2376`… as written. */
  host: string;
  /** `DOCKER_HOST`, `docker context "<name>"`, or `default`. */
  from: string;
  socketPath?: string;
  hostname?: string;
  port?: number;
  protocol?: 'http' | 'https';
  /** Folder of `ca.pem`, `cert.pem`, `key.pem` for TLS. */
  tlsDir?: string;
}

export const DEFAULT_DOCKER_HOST = 'unix:///var/run/docker.sock';

/**
 * Where the engine is, as the `docker` command finds it: `DOCKER_HOST`, else
 * `DOCKER_CONTEXT` or `currentContext` of `<home>/.docker/config.json` (or
 * `DOCKER_CONFIG`), whose endpoint is in
 * `contexts/meta/<sha256 of the name>/meta.json`, else the default socket.
 * Rejects with an `AgentvError` for a context that is named but unreadable.
 */
export async function resolveDockerEndpoint(
  env: Readonly<Record<string, string | undefined>>,
  home: string,
): Promise<DockerEndpoint> {
  const written = env.DOCKER_HOST;
  if (written !== undefined && written !== '') {
    const tlsDir = env.DOCKER_TLS_VERIFY === '1' ? (env.DOCKER_CERT_PATH ?? undefined) : undefined;
    return parseHost(written, 'DOCKER_HOST', tlsDir);
  }
  const configDir = env.DOCKER_CONFIG || path.join(home, '.docker');
  const context = env.DOCKER_CONTEXT || (await currentContext(configDir));
  if (context === undefined || context === 'default') {
    return parseHost(DEFAULT_DOCKER_HOST, 'default', undefined);
  }
  const id = createHash('sha256').update(context).digest('hex');
  const metaFile = path.join(configDir, 'contexts', 'meta', id, 'meta.json');
  const from = `docker context "${context}"`;
  const meta = await readJson(metaFile);
  const endpoint = (meta as { Endpoints?: { docker?: { Host?: unknown } } } | undefined)?.Endpoints
    ?.docker;
  if (typeof endpoint?.Host !== 'string' || endpoint.Host === '') {
    throw new AgentvError(`${from} has no Docker endpoint (read ${metaFile})`, {
      hint: 'switch to a working context (`docker context use default`), or set DOCKER_HOST',
    });
  }
  const tlsDir = path.join(configDir, 'contexts', 'tls', id, 'docker');
  return parseHost(endpoint.Host, from, endpoint.Host.startsWith('tcp:') ? tlsDir : undefined);
}

async function currentContext(configDir: string): Promise<string | undefined> {
  const config = await readJson(path.join(configDir, 'config.json'));
  const name = (config as { currentContext?: unknown } | undefined)?.currentContext;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

async function readJson(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function parseHost(host: string, from: string, tlsDir: string | undefined): DockerEndpoint {
  if (host.startsWith('unix://')) {
    return { host, from, socketPath: host.slice('unix://'.length) || '/var/run/docker.sock' };
  }
  if (host.startsWith('npipe://')) return { host, from, socketPath: host.slice('npipe://'.length) };
  const tcp = /^(?:tcp|http|https):\/\/([^:/]+|\[[^\]]+\]):(\d+)\/?$/.exec(host);
  if (tcp !== null) {
    const port = Number(tcp[2]);
    const tls = tlsDir !== undefined || port === 2376 || host.startsWith('https:');
    const endpoint: DockerEndpoint = {
      host,
      from,
      hostname: tcp[1],
      port,
      protocol: tls ? 'https' : 'http',
    };
    if (tls && tlsDir !== undefined) endpoint.tlsDir = tlsDir;
    return endpoint;
  }
  throw new AgentvError(`${from} is "${host}", which AgentV cannot reach`, {
    hint: 'use a socket (unix:///var/run/docker.sock) or tcp://host:port; for ssh:// forward the socket, e.g. `ssh -L /tmp/docker.sock:/var/run/docker.sock host`, and set DOCKER_HOST=unix:///tmp/docker.sock',
  });
}
