import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDockerRuntime } from './create-docker-runtime.js';
import { resolveDockerEndpoint } from './docker-endpoint.js';
import { dockerHost } from './test-support/test-runtime.js';

let home: string;

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'agentv-docker-home-'));
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/** Writes a docker context as `docker context create` does, and makes it current. */
async function useContext(name: string, host: string): Promise<void> {
  const id = createHash('sha256').update(name).digest('hex');
  const meta = path.join(home, '.docker', 'contexts', 'meta', id);
  await mkdir(meta, { recursive: true });
  await writeFile(
    path.join(meta, 'meta.json'),
    JSON.stringify({
      Name: name,
      Metadata: {},
      Endpoints: { docker: { Host: host, SkipTLSVerify: false } },
    }),
  );
  await writeFile(
    path.join(home, '.docker', 'config.json'),
    JSON.stringify({ currentContext: name }),
  );
}

describe('resolveDockerEndpoint', () => {
  it('uses the default socket without DOCKER_HOST or a context', async () => {
    expect(await resolveDockerEndpoint({}, home)).toMatchObject({
      from: 'default',
      socketPath: '/var/run/docker.sock',
    });
  });

  it('prefers DOCKER_HOST over the current context', async () => {
    await useContext('remote', 'unix:///run/remote.sock');
    expect(await resolveDockerEndpoint({ DOCKER_HOST: 'unix:///tmp/x.sock' }, home)).toMatchObject({
      from: 'DOCKER_HOST',
      socketPath: '/tmp/x.sock',
    });
    expect(await resolveDockerEndpoint({ DOCKER_HOST: 'tcp://10.0.0.5:2375' }, home)).toMatchObject(
      {
        hostname: '10.0.0.5',
        port: 2375,
        protocol: 'http',
      },
    );
  });

  it("reads the current context's endpoint from ~/.docker", async () => {
    await useContext('colima', 'unix:///home/me/.colima/docker.sock');
    expect(await resolveDockerEndpoint({}, home)).toMatchObject({
      from: 'docker context "colima"',
      socketPath: '/home/me/.colima/docker.sock',
    });
    await useContext('other', 'unix:///run/other.sock');
    expect(await resolveDockerEndpoint({ DOCKER_CONTEXT: 'colima' }, home)).toMatchObject({
      socketPath: '/home/me/.colima/docker.sock',
    });
  });

  it('says which context is broken', async () => {
    await mkdir(path.join(home, '.docker'), { recursive: true });
    await writeFile(path.join(home, '.docker', 'config.json'), '{"currentContext": "gone"}');
    await expect(resolveDockerEndpoint({}, home)).rejects.toMatchObject({
      message: expect.stringMatching(/^docker context "gone" has no Docker endpoint/),
      hint: expect.stringContaining('docker context use default'),
    });
  });

  it('refuses an endpoint it cannot reach, with what to do', async () => {
    await expect(
      resolveDockerEndpoint({ DOCKER_HOST: 'ssh://me@box' }, home),
    ).rejects.toMatchObject({
      message: 'DOCKER_HOST is "ssh://me@box", which AgentV cannot reach',
    });
  });
});

describe('an engine that is not running', () => {
  it('is named with a hint to start it or set DOCKER_HOST', async () => {
    const runtime = await createDockerRuntime({
      env: { DOCKER_HOST: `unix://${path.join(home, 'no-docker.sock')}` },
      home,
    });
    const error = await runtime.check().catch((e: unknown) => e);
    expect(error).toMatchObject({
      message: `the Docker engine is not running: connect ENOENT ${path.join(home, 'no-docker.sock')}, while checking the engine (ping)`,
    });
    expect((error as { hint: string }).hint).toMatch(/^start it .*or set DOCKER_HOST/);
  });
});

describe.skipIf(dockerHost === undefined)('a docker context on a real engine', () => {
  it('is the engine used when DOCKER_HOST is unset', async () => {
    await useContext('agentv-test', dockerHost as string);
    const runtime = await createDockerRuntime({ env: {}, home });
    expect(runtime.endpoint.from).toBe('docker context "agentv-test"');
    await expect(runtime.check({ image: 'agentv-test:busybox' })).resolves.toBeUndefined();
  });
});
