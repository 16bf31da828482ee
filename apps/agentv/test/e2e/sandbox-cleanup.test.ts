import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentvContainers,
  BUSYBOX_IMAGE,
  fileUnder,
  noEngine,
  sandboxCase,
  sandboxProject,
  spawnEval,
  waitFor,
} from '../support/docker.js';
import type { Project } from '../support/project.js';

// No container outlives its run: not after a normal end, not after Ctrl-C, and after `kill -9`
// the next run with containers sweeps what the killed one left (containers are labelled with the
// run, the AgentV process and the host). Containers are counted per AgentV process: the docker
// tests share one engine.

let project: Project | undefined;
const scratch: string[] = [];
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
  for (const dir of scratch.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** Cases that mark their workspace `started` and then run until killed. */
async function slowProject(): Promise<{ root: string }> {
  project = await sandboxProject({
    command: 'case {EVAL_ID} in slow*) touch started; sleep 600 ;; *) echo fine ;; esac',
    workspace: `docker: { image: ${BUSYBOX_IMAGE} }`,
    cases: ['slow-1', 'slow-2', 'quick']
      .map((id) => sandboxCase(id, '- { name: fine, type: contains, value: fine }'))
      .join('\n'),
  });
  const root = await mkdtemp(path.join(tmpdir(), 'agentv-sandbox-cleanup-'));
  scratch.push(root);
  return { root };
}

describe.skipIf(noEngine)('containers of a run (workspace.docker)', () => {
  it('leaves none after a normal end', async () => {
    project = await sandboxProject({
      command: 'cat /etc/os-release',
      workspace: `docker: { image: ${BUSYBOX_IMAGE} }`,
      cases: ['a', 'b', 'c']
        .map((id) => sandboxCase(id, '- { name: inside, type: contains, value: ID=agentv-test }'))
        .join('\n'),
    });
    const run = spawnEval(project.dir, [
      'evals/sandbox.yaml',
      '--out',
      'out.jsonl',
      '--workers',
      '2',
      '--workspace-root',
      'ws',
    ]);
    let seen = 0;
    const watch = setInterval(() => {
      seen = Math.max(seen, agentvContainers({ pid: run.child.pid }).length);
    }, 100);
    const code = await run.closed.finally(() => clearInterval(watch));
    expect(run.stderr()).not.toMatch(/\n\s+at /);
    expect(code, run.stderr()).toBe(0);
    expect(agentvContainers({ pid: run.child.pid })).toEqual([]);
    // It did run in containers (one per worker slot at most), so the check above could fail.
    expect(seen).toBeGreaterThan(0);
    expect(seen).toBeLessThanOrEqual(2);
  });

  it('leaves none after Ctrl-C (SIGINT) in the middle of a case', async () => {
    const { root } = await slowProject();
    const run = spawnEval(project!.dir, [
      'evals/sandbox.yaml',
      '--out',
      'out.jsonl',
      '--workspace-root',
      root,
    ]);
    await waitFor('a case to start in its container', () => fileUnder(root, 'started'));
    expect(agentvContainers({ pid: run.child.pid }).length).toBeGreaterThan(0);
    run.child.kill('SIGINT');
    const code = await run.closed;
    expect(code).not.toBe(0);
    expect(run.stderr()).not.toMatch(/\n\s+at /);
    expect(agentvContainers({ pid: run.child.pid })).toEqual([]);
  });

  it('after kill -9, the next run removes the containers the killed one left', async () => {
    const { root } = await slowProject();
    const killed = spawnEval(project!.dir, [
      'evals/sandbox.yaml',
      '--out',
      'killed.jsonl',
      '--workspace-root',
      root,
    ]);
    await waitFor('a case to start in its container', () => fileUnder(root, 'started'));
    killed.child.kill('SIGKILL');
    await killed.closed;
    const left = agentvContainers({ pid: killed.child.pid });
    expect(left.length).toBeGreaterThan(0);

    const next = spawnEval(project!.dir, [
      'evals/sandbox.yaml',
      '--out',
      'next.jsonl',
      '--filter',
      'quick',
      '--workspace-root',
      root,
    ]);
    const code = await next.closed;
    expect(next.stderr()).not.toMatch(/\n\s+at /);
    expect(code, next.stderr()).toBe(0);
    expect(agentvContainers({ pid: killed.child.pid })).toEqual([]);
    expect(agentvContainers({ pid: next.child.pid })).toEqual([]);
  });
});
