import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  brief,
  CASE,
  GRADERS,
  load,
  project,
  removeProjects,
} from './test-support/workspace-project.js';

afterEach(removeProjects);

describe('loadEvalFile: workspace.docker', () => {
  it('resolves a docker block: defaults, build and mount paths against the file, in the key', async () => {
    const dir = await project({
      'evals/docker/Dockerfile': 'FROM busybox\n',
      'evals/data/a.txt': 'a',
      'evals/suite.yaml': `${GRADERS}workspace:
  docker:
    build: ./docker
    memory: 512m
    cpus: 1.5
    user: "1000:1000"
    env: { LANG: C.UTF-8 }
    mounts: [{ source: ./data, target: /data, read_only: true }]
    timeout: 600
evalcases:
${CASE('one')}${CASE('two', '    workspace: { docker: { image: "python:3.12", network: bridge, read_only: false } }\n')}`,
    });
    const result = await load(dir);
    expect(result.issues).toEqual([]);
    const [one, two] = result.value!.cases;
    expect(one!.workspace?.docker).toEqual({
      build: path.join(dir, 'evals', 'docker'),
      memory: '512m',
      memoryBytes: 512 * 1024 * 1024,
      cpus: 1.5,
      user: '1000:1000',
      env: { LANG: 'C.UTF-8' },
      mounts: [{ source: path.join(dir, 'evals', 'data'), target: '/data', readOnly: true }],
      network: 'none',
      readOnly: true,
      timeoutSeconds: 600,
    });
    // A case's docker block replaces the file's as a whole.
    expect(two!.workspace?.docker).toEqual({
      image: 'python:3.12',
      network: 'bridge',
      env: {},
      mounts: [],
      readOnly: false,
    });
    expect(one!.workspace?.key).not.toBe(two!.workspace?.key);
  });

  it('reports every problem of a docker block at its line, without contacting an engine', async () => {
    const dir = await project({
      'evals/suite.yaml': `${GRADERS}workspace:
  docker:
    image: python:3.12
    build: ./Dockerfile
    memory: 512mb
    cpus: 2
    network: host
    netwrk: none
    mounts: [{ source: ./nowhere, target: /workspace/data }, { source: ../../.., target: data }]
evalcases:
${CASE('one')}`,
    });
    const result = await load(dir);
    expect(result.value).toBeUndefined();
    expect(result.issues.map(brief)).toEqual([
      'error 5:5 workspace.docker: has both `image` and `build` (keep one: `image:` an image the engine has, or `build:` a Dockerfile)',
      'error 6:12 workspace.docker.build "./Dockerfile" not found (looked for evals/Dockerfile) (relative paths start from evals/)',
      'error 7:13 workspace.docker.memory "512mb" is not a memory size (write a number and a unit, b, k, m or g: `memory: 512m`, `memory: 2g`)',
      'error 9:14 workspace.docker.network "host" would share this machine\'s network (use `none` (the default), `bridge`, or a network made for the eval (`docker network create`))',
      'error 10:5 workspace.docker: unknown key "netwrk" (did you mean "network"?)',
      'error 11:24 workspace.docker.mounts[0].source "./nowhere" not found (looked for evals/nowhere) (relative paths start from evals/)',
      'error 11:43 workspace.docker.mounts[0].target "/workspace/data" is where AgentV mounts the workspace (mount it elsewhere, e.g. `target: /data`; to put files into the workspace use `template:`)',
      expect.stringMatching(
        /^error 11:72 workspace\.docker\.mounts\[1\]\.source "\.\.\/\.\.\/\.\." resolves to \/, outside the project root /,
      ),
      'error 11:90 workspace.docker.mounts[1].target "data" is not an absolute path (write where the folder appears in the container, e.g. `target: /data`)',
    ]);
  });

  it('refuses cpus that are not above 0 and a docker block in a dataset record', async () => {
    const dir = await project({
      'evals/rows.jsonl':
        '{"id": "r1", "input": "hi", "workspace": {"docker": {"image": "busybox"}}}\n',
      'evals/suite.yaml': `${GRADERS}workspace:
  docker: { image: busybox, cpus: 0 }
cases: ./rows.jsonl
`,
    });
    const cpus = await load(dir);
    expect(cpus.issues.map(brief)).toEqual([
      "error 1:1 [r1] workspace.docker: a dataset record cannot choose a container (a build runs the commands of its Dockerfile) (declare `docker:` in the eval file's `workspace:`, which applies to every record)",
      'error 4:35 workspace.docker.cpus must be greater than 0 (cpus is a number > 0, e.g. `cpus: 1.5`)',
    ]);
    await writeFile(path.join(dir, 'evals/suite.yaml'), `${GRADERS}cases: ./rows.jsonl\n`);
    const record = await load(dir);
    expect(record.issues.map((issue) => issue.message)).toEqual([
      expect.stringContaining(
        'workspace.docker: a dataset record cannot choose a container (a build runs the commands of its Dockerfile)',
      ),
    ]);
  });
});
