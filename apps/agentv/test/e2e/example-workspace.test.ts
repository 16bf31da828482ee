import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { parseJsonl } from '../support/project.js';
import { treeHash } from '../support/workspaces.js';

// examples/workspace, run as `npm run example:workspace` runs it (after its build step):
// offline, no API key, one case failing on purpose.

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

let scratch: string | undefined;
afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

describe('examples/workspace', () => {
  it('grades a coding agent by its tests, files and diff, and says the one failure is on purpose', async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'agentv-example-workspace-'));
    const out = path.join(scratch, 'out.jsonl');
    const root = path.join(scratch, 'workspaces');
    const template = treeHash(path.join(ROOT, 'examples/workspace/repo'));
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['scripts/run-example-workspace.mjs', '--out', out, '--workspace-root', root],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', CI: '1' } },
    );
    expect(stdout).toContain('fix-truncate fails on purpose');
    const lines = parseJsonl(readFileSync(out, 'utf8'));
    const byId = Object.fromEntries(lines.map((line) => [line.eval_id, line]));
    expect(byId['fix-slugify']).toMatchObject({ passed: true, score: 1 });
    expect(byId['fix-title-case']).toMatchObject({ passed: true, score: 1 });
    const truncate = byId['fix-truncate'];
    expect(truncate.passed).toBe(false);
    const verdicts = Object.fromEntries(
      truncate.evaluator_results.map((result: { name: string; verdict: string }) => [
        result.name,
        result.verdict,
      ]),
    );
    // The tests pass (the agent edited them); the diff grader catches it.
    expect(verdicts).toEqual({ tests: 'pass', notes: 'pass', scope: 'fail' });
    expect(stderr).toContain(`fix-truncate  ${truncate.workspace.kept_at}`);
    expect(readdirSync(path.join(scratch, 'out.workspaces')).sort()).toEqual([
      'fix-slugify.diff',
      'fix-slugify.json',
      'fix-title-case.diff',
      'fix-title-case.json',
      'fix-truncate.diff',
      'fix-truncate.json',
    ]);
    expect(treeHash(path.join(ROOT, 'examples/workspace/repo'))).toBe(template);
  });
});
