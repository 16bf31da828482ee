import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Sandbox } from '@agentv/core/provider-utils';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DockerRuntime } from './docker-runtime.js';
import { TEST_IMAGE } from './test-support/docker-engine.js';
import { dockerHost, testRuntime } from './test-support/test-runtime.js';

describe.skipIf(dockerHost === undefined)('DockerRuntime on a real engine', () => {
  let runtime: DockerRuntime;
  let workspace: string;
  let sandbox: Sandbox;

  beforeAll(async () => {
    runtime = await testRuntime();
    workspace = await mkdtemp(path.join(os.tmpdir(), 'agentv-sandbox-ws-'));
    await writeFile(path.join(workspace, 'task.txt'), 'fix the bug\n');
    sandbox = await runtime.create({ image: TEST_IMAGE, workspace, runId: 'runtime-test' });
  });

  afterAll(async () => {
    await sandbox?.destroy();
    await rm(workspace, { recursive: true, force: true });
  });

  it('runs an argv list in /workspace, with env and stdin, and reports the exit code', async () => {
    const outcome = await sandbox.exec({
      command: ['sh', '-c', 'pwd; cat task.txt; echo "$GREETING"; cat; echo oops >&2; exit 3'],
      env: { GREETING: 'hello' },
      stdin: 'from stdin',
    });
    expect(outcome.stdout).toBe('/workspace\nfix the bug\nhello\nfrom stdin');
    expect(outcome.stderr).toBe('oops\n');
    expect(outcome).toMatchObject({
      exitCode: 3,
      timedOut: false,
      aborted: false,
      oomKilled: false,
    });
  });

  it('runs a string through /bin/sh in the given cwd; the workspace is the host folder', async () => {
    const outcome = await sandbox.exec({
      command: 'echo changed > answer.txt && pwd',
      cwd: '/tmp',
    });
    expect(outcome).toMatchObject({ stdout: '/tmp\n', exitCode: 0 });
    const written = await sandbox.exec({ command: 'echo written > /workspace/out.txt' });
    expect(written.exitCode).toBe(0);
    expect(await readFile(path.join(workspace, 'out.txt'), 'utf8')).toBe('written\n');
  });

  it('holds at most 512 processes by default, so a fork bomb cannot take the machine', async () => {
    const engine = new Docker({ socketPath: dockerHost!.replace(/^unix:\/\//, '') });
    const info = await engine.getContainer(sandbox.id).inspect();
    expect(info.HostConfig.PidsLimit).toBe(512);
  });

  it('has a read-only root with writable /workspace and /tmp', async () => {
    const root = await sandbox.exec({ command: 'touch /rootfile' });
    expect(root.exitCode).not.toBe(0);
    expect(root.stderr).toMatch(/Read-only file system/);
    const writable = await sandbox.exec({ command: 'touch /workspace/a /tmp/b && echo ok' });
    expect(writable).toMatchObject({ stdout: 'ok\n', exitCode: 0 });
  });

  it('kills a process that passes its timeout, with the processes it started', async () => {
    const outcome = await sandbox.exec({
      command: 'sleep 300 & echo started; sleep 300',
      // Long enough for the exec to start and print on a busy machine.
      timeoutMs: 10_000,
    });
    expect(outcome).toMatchObject({ stdout: 'started\n', timedOut: true, aborted: false });
    expect(outcome.exitCode).toBeUndefined();
    expect(outcome.message).toBe('timed out after 10000 ms');
    const left = await sandbox.exec({ command: 'ps 2>/dev/null || ls /proc | grep -c "^[0-9]"' });
    expect(left.stdout).not.toMatch(/sleep 300/);
  });

  it('stops a process when its signal aborts', async () => {
    const controller = new AbortController();
    const running = sandbox.exec({ command: 'sleep 300', signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    const outcome = await running;
    expect(outcome).toMatchObject({ aborted: true, timedOut: false });
  });

  it('keeps the first bytes of stdout up to the ceiling', async () => {
    const outcome = await sandbox.exec({ command: 'yes | head -c 100000', maxStdoutBytes: 1000 });
    expect(outcome.stdout.length).toBe(1000);
    expect(outcome.exitCode).toBe(0);
  });

  it('cannot reach a server on the host 127.0.0.1 (no network)', async () => {
    const server = http.createServer((_request, response) => response.end('reached'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const fromHost = await fetch(`http://127.0.0.1:${port}/`).then((response) => response.text());
      expect(fromHost).toBe('reached');
      const outcome = await sandbox.exec({
        command: `wget -q -T 3 -O - http://127.0.0.1:${port}/; echo "exit $?"; ls /sys/class/net`,
      });
      expect(outcome.stdout).not.toContain('reached');
      expect(outcome.stdout).toMatch(/exit [1-9]/);
      expect(outcome.stdout.trim().split('\n').slice(1)).toEqual(['lo']);
    } finally {
      server.close();
    }
  });

  it('copies files in and out', async () => {
    const source = await mkdtemp(path.join(os.tmpdir(), 'agentv-copy-'));
    try {
      await writeFile(path.join(source, 'in.txt'), 'copied in\n');
      await sandbox.copyIn(path.join(source, 'in.txt'), '/workspace');
      const read = await sandbox.exec({ command: 'cat /workspace/in.txt' });
      expect(read.stdout).toBe('copied in\n');
      await sandbox.exec({
        command: 'mkdir -p /workspace/made && echo made inside > /workspace/made/made.txt',
      });
      await sandbox.copyOut('/workspace/made/made.txt', path.join(source, 'out'));
      expect(await readFile(path.join(source, 'out', 'made.txt'), 'utf8')).toBe('made inside\n');
      const missing = await sandbox.copyOut('/workspace/absent', source).catch((e: unknown) => e);
      expect(missing).toMatchObject({
        message: expect.stringMatching(/^copying \/workspace\/absent out of the sandbox failed: /),
      });
    } finally {
      await rm(source, { recursive: true, force: true });
    }
  });

  it('reports a process killed for memory as "out of memory (limit 16m)"', async () => {
    const small = await runtime.create({
      image: TEST_IMAGE,
      runId: 'runtime-test',
      memoryBytes: 16 * 1024 * 1024,
    });
    try {
      // dd reads into one buffer of `bs` bytes: 64 MiB of touched memory, four times the limit.
      const outcome = await small.exec({ command: 'dd if=/dev/zero of=/dev/null bs=64M count=1' });
      expect(outcome.oomKilled).toBe(true);
      expect(outcome.message).toBe('out of memory (limit 16m)');
      expect(outcome.exitCode).toBeUndefined();
      const after = await small.exec({ command: 'echo still here' });
      expect(after).toMatchObject({ stdout: 'still here\n', exitCode: 0, oomKilled: false });
    } finally {
      await small.destroy();
    }
  });

  it('refuses an image the engine does not have, naming docker pull and build:', async () => {
    const error = await runtime.prepare({ image: 'agentv-test:absent' }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      message: 'image "agentv-test:absent" is not on this Docker engine (AgentV never pulls)',
    });
    expect((error as { hint: string }).hint).toContain('docker pull agentv-test:absent');
    expect((error as { hint: string }).hint).toContain('build:');
    const created = await runtime
      .create({ image: 'agentv-test:absent', runId: 'runtime-test' })
      .catch((e: unknown) => e);
    expect(created).toMatchObject({ message: expect.stringContaining('never pulls') });
  });

  it('labels containers with the run, the process and the host', async () => {
    const Docker = (await import('dockerode')).default;
    const docker = new Docker({ socketPath: (dockerHost as string).slice('unix://'.length) });
    const info = await docker.getContainer(sandbox.id).inspect();
    expect(info.Config.Labels).toMatchObject({
      'agentv.run': 'runtime-test',
      'agentv.pid': String(process.pid),
      'agentv.host': os.hostname(),
    });
    expect(info.HostConfig.NetworkMode).toBe('none');
    expect(info.HostConfig.ReadonlyRootfs).toBe(true);
  });
});
