import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BUSYBOX_IMAGE,
  engineEnv,
  noEngine,
  sandboxCase,
  sandboxProject,
} from '../support/docker.js';
import { type Project, runAgentv } from '../support/project.js';

// What a user sees when the engine or the image is not there: an error before the first case,
// saying what to do; and `validate`, which never contacts the engine.

let project: Project | undefined;
const scratch: string[] = [];
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
  for (const dir of scratch.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A DOCKER_HOST socket path nobody listens on. */
async function deadSocket(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentv-no-engine-'));
  scratch.push(dir);
  return `unix://${path.join(dir, 'docker.sock')}`;
}

/** A project whose one case runs `echo ran` in a container of `image`. */
async function project1(image: string): Promise<Project> {
  return sandboxProject({
    command: 'echo ran',
    workspace: `docker: { image: ${image}, memory: 64m }`,
    cases: sandboxCase('one', '- { name: ran, type: contains, value: ran }'),
  });
}

describe('workspace.docker without an engine', () => {
  it('validate checks the block without contacting Docker', async () => {
    project = await project1('python:3.12');
    const run = await runAgentv(['validate', 'evals/sandbox.yaml'], project.dir, {
      DOCKER_HOST: await deadSocket(),
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  it('validate still reports a bad block without an engine', async () => {
    project = await sandboxProject({
      command: 'echo ran',
      workspace: 'docker: { image: python:3.12, memory: lots, network: host }',
      cases: sandboxCase('one', '- { name: ran, type: contains, value: ran }'),
    });
    const run = await runAgentv(['validate', 'evals/sandbox.yaml'], project.dir, {
      DOCKER_HOST: await deadSocket(),
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/evals\/sandbox\.yaml:\d+:\d+: workspace\.docker\.memory "lots"/);
    expect(run.stdout).toMatch(/workspace\.docker\.network "host"/);
  });

  it('eval stops before the first case with a hint when the engine is not running', async () => {
    project = await project1(BUSYBOX_IMAGE);
    const run = await runAgentv(
      ['eval', 'evals/sandbox.yaml', '--out', 'out.jsonl', '--workspace-root', 'ws'],
      project.dir,
      {
        CI: '1',
        DOCKER_HOST: await deadSocket(),
      },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Docker engine is not running/i);
    expect(run.stderr).toContain('DOCKER_HOST');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(
      existsSync(project.file('out.jsonl')) ? readFileSync(project.file('out.jsonl'), 'utf8') : '',
    ).toBe('');
  });
});

describe.skipIf(noEngine)('workspace.docker with an image the engine does not have', () => {
  it('eval stops before the first case naming `docker pull`, and pulls nothing', async () => {
    project = await project1('agentv-test:not-there');
    const run = await runAgentv(
      ['eval', 'evals/sandbox.yaml', '--out', 'out.jsonl', '--workspace-root', 'ws'],
      project.dir,
      engineEnv(),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('docker pull agentv-test:not-there');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(
      existsSync(project.file('out.jsonl')) ? readFileSync(project.file('out.jsonl'), 'utf8') : '',
    ).toBe('');
  });
});
