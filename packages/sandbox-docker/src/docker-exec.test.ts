import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { createDockerRuntime } from './create-docker-runtime.js';
import { TEST_IMAGE } from './test-support/docker-engine.js';
import { dockerHost } from './test-support/test-runtime.js';

/**
 * A socket in front of the tests' engine that can stop taking connections while the ones it
 * holds (an exec's attached output) go on: what AgentV sees when the engine goes away under a
 * running case but its open streams have not noticed yet.
 */
async function engineProxy(dir: string) {
  const socketPath = path.join(dir, 'engine.sock');
  const upstream = dockerHost!.replace(/^unix:\/\//, '');
  const held = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const engine = net.connect(upstream);
    for (const socket of [client, engine]) {
      held.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => held.delete(socket));
    }
    client.pipe(engine).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    host: `unix://${socketPath}`,
    /** New connections fail from now on (the socket is gone); the open ones go on. */
    refuseNew: () => {
      server.close();
    },
    end: () => {
      for (const socket of held) socket.destroy();
    },
  };
}

describe.skipIf(dockerHost === undefined)('an exec whose engine goes away', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('ends a timed-out case at once with the engine error, not after the kill grace', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-engine-gone-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const proxy = await engineProxy(dir);
    cleanups.push(proxy.end);
    const runtime = await createDockerRuntime({
      env: { DOCKER_HOST: proxy.host },
      home: '/nonexistent',
    });
    const sandbox = await runtime.create({
      image: TEST_IMAGE,
      workspace: dir,
      runId: 'engine-gone',
    });
    // Removed through the engine itself: the proxy takes no connection by then.
    const engine = new Docker({ socketPath: dockerHost!.replace(/^unix:\/\//, '') });
    cleanups.push(() =>
      engine
        .getContainer(sandbox.id)
        .remove({ force: true })
        .catch(() => {}),
    );

    const timeoutMs = 8000;
    const started = Date.now();
    const running = sandbox.exec({ command: 'sleep 60', timeoutMs });
    // Once the exec runs (its output stream open through the proxy), the engine stops answering
    // new calls: the kill at the timeout, an exec of its own, cannot reach it.
    const deadline = started + timeoutMs - 1000;
    let asleep = false;
    while (!asleep && Date.now() < deadline) {
      const top = await engine
        .getContainer(sandbox.id)
        .top()
        .catch(() => ({ Processes: [] as string[][] }));
      asleep = top.Processes.some((row: string[]) => row.join(' ').includes('sleep 60'));
      if (!asleep) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(asleep, 'the exec did not start before its timeout').toBe(true);
    proxy.refuseNew();
    const error = await running.then(
      () => undefined,
      (failure: unknown) => failure as Error,
    );
    const took = Date.now() - started;
    expect(error?.message).toMatch(/Docker engine is not running/);
    // At the timeout, not after the kill's 10 s grace and the 5 s output cut that follow it.
    expect(took).toBeGreaterThanOrEqual(timeoutMs);
    expect(took).toBeLessThan(timeoutMs + 8000);
  });
});
