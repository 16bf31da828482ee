import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { agentvContainers, dockerHost, noEngine } from '../support/docker.js';
import { parseJsonl } from '../support/project.js';
import { treeHash } from '../support/workspaces.js';

// examples/workspace/evals/coding-docker.yaml, run as `npm run example:workspace:docker` runs it,
// against the tests' engine, where the Node image is tagged node:20-slim like the one users pull:
// the same verdicts as on this machine (example-workspace.test.ts), from inside a container.

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

let scratch: string | undefined;
afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

describe.skipIf(noEngine)('examples/workspace in a container (workspace.docker)', () => {
  it('grades the agent, the hook and the tests inside node:20-slim with the verdicts of the host run, and leaves no container', async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'agentv-example-workspace-docker-'));
    const out = path.join(scratch, 'out.jsonl');
    const root = path.join(scratch, 'workspaces');
    const template = treeHash(path.join(ROOT, 'examples/workspace/repo'));
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['scripts/run-example-workspace.mjs', '--docker', '--out', out, '--workspace-root', root],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', CI: '1', DOCKER_HOST: dockerHost } },
    );
    expect(stdout).toContain('fix-truncate fails on purpose');
    const lines = parseJsonl(readFileSync(out, 'utf8'));
    const byId = Object.fromEntries(lines.map((line) => [line.eval_id, line]));
    expect(byId['fix-slugify']).toMatchObject({ passed: true, score: 1, target: 'in_docker' });
    expect(byId['fix-title-case']).toMatchObject({ passed: true, score: 1 });
    // The agent answered from inside: its script is mounted at /agent.
    expect(byId['fix-slugify'].candidate_answer).toContain('src/slugify.js');
    const truncate = byId['fix-truncate'];
    expect(truncate.passed).toBe(false);
    const verdicts = Object.fromEntries(
      truncate.evaluator_results.map((result: { name: string; verdict: string }) => [
        result.name,
        result.verdict,
      ]),
    );
    expect(verdicts).toEqual({ tests: 'pass', notes: 'pass', scope: 'fail' });
    expect(stderr).toContain(`fix-truncate  ${truncate.workspace.kept_at}`);
    // The hook wrote TASK.md inside the container, into the mounted workspace (kept on this machine).
    expect(readFileSync(path.join(truncate.workspace.kept_at, 'TASK.md'), 'utf8')).toContain(
      'truncate()',
    );
    expect(readdirSync(path.join(scratch, 'out.workspaces')).sort()).toEqual([
      'fix-slugify.diff',
      'fix-slugify.json',
      'fix-title-case.diff',
      'fix-title-case.json',
      'fix-truncate.diff',
      'fix-truncate.json',
    ]);
    expect(treeHash(path.join(ROOT, 'examples/workspace/repo'))).toBe(template);
    // The run's containers are labelled with its id (the other docker tests share the engine).
    expect(agentvContainers({ runId: truncate.run.id })).toEqual([]);
  });
});
