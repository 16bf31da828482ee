import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBuildContext } from './build-context.js';
import { dockerHost, testRuntime } from './test-support/test-runtime.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-build-'));
  await writeFile(
    path.join(dir, 'Dockerfile'),
    'FROM agentv-test:busybox\nCOPY tool.sh /opt/tool.sh\n',
  );
  await writeFile(path.join(dir, 'tool.sh'), 'echo v1\n');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readBuildContext', () => {
  it('tags by the content of the context: same files, same tag; a changed file, a new tag', async () => {
    const first = await readBuildContext(dir);
    expect(first).toMatchObject({ dir, dockerfile: 'Dockerfile' });
    expect(first.tag).toMatch(/^agentv-build:[0-9a-f]{16}$/);
    expect((await readBuildContext(path.join(dir, 'Dockerfile'))).tag).toBe(first.tag);
    await writeFile(path.join(dir, 'tool.sh'), 'echo v2\n');
    const changed = await readBuildContext(dir);
    await writeFile(path.join(dir, 'tool.sh'), 'echo v1\n');
    expect(changed.tag).not.toBe(first.tag);
  });

  it('names a folder without a Dockerfile', async () => {
    const empty = await mkdtemp(path.join(os.tmpdir(), 'agentv-build-empty-'));
    try {
      await expect(readBuildContext(empty)).rejects.toMatchObject({
        message: `build: "${empty}" holds no Dockerfile`,
      });
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe.skipIf(dockerHost === undefined)('build: on a real engine', () => {
  it('builds once, then uses the image while the context is unchanged', async () => {
    const runtime = await testRuntime();
    const docker = new Docker({ socketPath: (dockerHost as string).slice('unix://'.length) });
    const tag = await runtime.prepare({ build: dir });
    const built = await docker.getImage(tag).inspect();
    expect(await runtime.prepare({ build: path.join(dir, 'Dockerfile') })).toBe(tag);
    expect((await docker.getImage(tag).inspect()).Id).toBe(built.Id);
    expect((await docker.getImage(tag).inspect()).Created).toBe(built.Created);

    const sandbox = await runtime.create({ image: tag, runId: 'build-test' });
    try {
      const outcome = await sandbox.exec({ command: ['sh', '/opt/tool.sh'] });
      expect(outcome.stdout).toBe('v1\n');
    } finally {
      await sandbox.destroy();
      await docker.getImage(tag).remove();
    }
  });

  it('reports a failing build with the end of its log', async () => {
    const broken = await mkdtemp(path.join(os.tmpdir(), 'agentv-build-broken-'));
    try {
      await writeFile(path.join(broken, 'Dockerfile'), 'FROM agentv-test:busybox\nRUN exit 7\n');
      const runtime = await testRuntime();
      const error = await runtime.prepare({ build: broken }).catch((e: unknown) => e);
      expect(error).toMatchObject({
        message: expect.stringMatching(/^building the image of .* failed: .*exit/),
      });
    } finally {
      await rm(broken, { recursive: true, force: true });
    }
  });
});
