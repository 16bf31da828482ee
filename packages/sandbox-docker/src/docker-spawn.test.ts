import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Sandbox, SandboxProcess } from '@agentv/core/provider-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DockerRuntime } from './docker-runtime.js';
import { TEST_IMAGE } from './test-support/docker-engine.js';
import { dockerHost, testRuntime } from './test-support/test-runtime.js';

/** Resolves with the first `count` lines `process` writes to stdout. */
function readLines(process: SandboxProcess, count: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: string) => {
      text += chunk;
      const lines = text.split('\n');
      if (lines.length > count) {
        process.stdout.off('data', onData);
        resolve(lines.slice(0, count));
      }
    };
    process.stdout.on('data', onData);
    process.done.then(() => reject(new Error(`ended after: ${text}`)));
  });
}

describe.skipIf(dockerHost === undefined)('DockerSandbox.spawn on a real engine', () => {
  let runtime: DockerRuntime;
  let workspace: string;
  let sandbox: Sandbox;

  beforeAll(async () => {
    runtime = await testRuntime();
    workspace = await mkdtemp(path.join(os.tmpdir(), 'agentv-spawn-ws-'));
    sandbox = await runtime.create({ image: TEST_IMAGE, workspace, runId: 'spawn-test' });
  });
  afterAll(async () => {
    await sandbox?.destroy();
    await rm(workspace, { recursive: true, force: true });
  });

  const processes = async () =>
    (await sandbox.exec({ command: 'ps -o pid,args', cwd: '/' })).stdout;

  it('answers line by line over stdin/stdout in /workspace, stderr apart, and ends on EOF', async () => {
    const agent = await sandbox.spawn!({
      command: 'pwd; while read -r line; do echo "got $line"; echo "log $line" >&2; done; exit 4',
      env: { GREETING: 'hi' },
    });
    let stderr = '';
    agent.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    const first = readLines(agent, 2);
    agent.stdin.write('one\n');
    expect(await first).toEqual(['/workspace', 'got one']);
    const second = readLines(agent, 1);
    agent.stdin.write('two\n');
    expect(await second).toEqual(['got two']);
    expect(agent.exited).toBe(false);
    const outcome = await agent.stop();
    expect(outcome).toMatchObject({ exitCode: 4, oomKilled: false, aborted: false });
    expect(agent.exited).toBe(true);
    expect(stderr).toBe('log one\nlog two\n');
  });

  it('kill() stops the process and its children inside the container', async () => {
    const agent = await sandbox.spawn!({
      command: 'sleep 1001 & sleep 1002; echo never',
    });
    // Wait for both sleeps to run before killing.
    const deadline = Date.now() + 30_000;
    while (!/sleep 1002/.test(await processes()) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await processes()).toMatch(/sleep 1001[\s\S]*sleep 1002|sleep 1002[\s\S]*sleep 1001/);
    const outcome = await agent.kill();
    expect(outcome).toMatchObject({ aborted: true, oomKilled: false });
    expect(outcome.exitCode).toBeUndefined();
    expect(await processes()).not.toMatch(/sleep 100[12]/);
  });

  it('stop() kills a process that ignores EOF after the grace period', async () => {
    const agent = await sandbox.spawn!({
      command: ['sh', '-c', 'trap "" TERM; while true; do sleep 1; done'],
      killGraceMs: 500,
    });
    const outcome = await agent.stop();
    expect(outcome.aborted).toBe(true);
    expect(await processes()).not.toMatch(/while true/);
  });

  it('reports a process killed for memory as oomKilled, with the limit', async () => {
    const small = await runtime.create({
      image: TEST_IMAGE,
      runId: 'spawn-test',
      memoryBytes: 16 * 1024 * 1024,
    });
    try {
      const agent = await small.spawn!({
        command: 'read -r go; dd if=/dev/zero of=/dev/null bs=64M count=1',
      });
      agent.stdin.write('go\n');
      const outcome = await agent.done;
      expect(outcome).toMatchObject({ oomKilled: true, message: 'out of memory (limit 16m)' });
      expect(outcome.exitCode).toBeUndefined();
    } finally {
      await small.destroy();
    }
  });

  it('ends when its container is removed, and kill() then resolves', async () => {
    const other = await runtime.create({ image: TEST_IMAGE, runId: 'spawn-test' });
    const agent = await other.spawn!({ command: 'cat' });
    await other.destroy();
    const outcome = await agent.done;
    expect(agent.exited).toBe(true);
    expect(outcome.oomKilled).toBe(false);
    await expect(agent.kill()).resolves.toBeDefined();
  });
});
