import { spawn } from 'node:child_process';
import { once } from 'node:events';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { TEST_IMAGE } from './test-support/docker-engine.js';
import { dockerHost, testRuntime } from './test-support/test-runtime.js';

describe.skipIf(dockerHost === undefined)('sweep', () => {
  it("removes the containers of a killed AgentV process and keeps a live process's", async () => {
    const runtime = await testRuntime();
    const docker = new Docker({ socketPath: (dockerHost as string).slice('unix://'.length) });
    const live = await runtime.create({ image: TEST_IMAGE, runId: 'live-run' });
    const child = spawn(
      process.execPath,
      [
        new URL('./test-support/hold-container.mjs', import.meta.url).pathname,
        dockerHost as string,
        TEST_IMAGE,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      let output = '';
      child.stdout.setEncoding('utf8');
      const id = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          output += chunk;
          if (output.includes('\n')) resolve(output.trim());
        });
        child.once('exit', (code) =>
          reject(new Error(`hold-container exited (${code}): ${output}`)),
        );
      });
      expect((await docker.getContainer(id).inspect()).State.Running).toBe(true);

      child.kill('SIGKILL');
      await once(child, 'exit');
      expect(await runtime.sweep()).toBe(1);

      const error = await docker
        .getContainer(id)
        .inspect()
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ statusCode: 404 });
      expect((await docker.getContainer(live.id).inspect()).State.Running).toBe(true);
    } finally {
      child.kill('SIGKILL');
      await live.destroy();
    }
  });
});
