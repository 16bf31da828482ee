import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Project, parseJsonl, runAgentv } from '../support/project.js';
import { agentCase, foldersIn, workspaceProject } from '../support/workspaces.js';

// --dry-run with workspaces, and what a run stopped by a workspace setup error still reports.

let project: Project | undefined;
const scratch: string[] = [];
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
  for (const dir of scratch.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function workspaceRoot(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentv-ws-root-'));
  scratch.push(dir);
  return dir;
}

const FIXED = `- { name: fixed, type: file, path: src/sum.js, contains: "a + b" }`;

describe('agentv eval --dry-run with workspaces', () => {
  it('sets up no workspace and runs no hook: it lists those cases and what a real run would do', async () => {
    project = await workspaceProject({
      'evals/fix.yaml': `workspace:
  template: ./app
  hooks:
    before_all: { command: 'touch "$MARKS/before_all"' }
    before_each: { command: [node, "{{workspace_path}}/seed.mjs", "{{test_id}}"] }
    after_all: { command: 'touch "$MARKS/after_all"' }
evalcases:
${agentCase('fix-1', 'fix', FIXED)}${agentCase('fix-2', 'fix', FIXED)}`,
      'evals/plain.yaml': `evalcases:
  - id: plain-1
    input_messages: [{ role: user, content: hello }]
    evaluators:
      - { name: any, type: contains, value: "x" }
`,
    });
    const root = await workspaceRoot();
    const run = await runAgentv(
      ['eval', 'evals', '--dry-run', '--out', 'out.jsonl', '--workspace-root', root],
      project.dir,
      { MARKS: project.dir },
    );
    expect(run.code, run.stderr).not.toBe(2);
    expect(run.stdout).toContain(
      'dry run: 2 cases have a workspace and are not run (a dry run sets up no workspace and runs no hook):',
    );
    expect(run.stdout).toContain('evals/fix.yaml  fix-1  default');
    expect(run.stdout).toContain('evals/fix.yaml  fix-2  default');
    expect(run.stdout).toContain('for 2 cases (fix-1, fix-2): a pooled workspace per case');
    expect(run.stdout).toMatch(/copy the template .*evals\/app\n/);
    expect(run.stdout).toContain('run before_all: touch "$MARKS/before_all"');
    expect(run.stdout).toContain(
      'run before_each: ["node","{{workspace_path}}/seed.mjs","{{test_id}}"]',
    );
    expect(existsSync(project.file('before_all'))).toBe(false);
    expect(existsSync(project.file('after_all'))).toBe(false);
    expect(foldersIn(root)).toEqual([]);
    // The cases without a workspace are answered by the mock provider, as always.
    const lines = parseJsonl(readFileSync(project.file('out.jsonl'), 'utf8'));
    expect(lines.map((line) => line.eval_id)).toEqual(['plain-1']);
  });

  it('with only workspace cases, lists them and exits 0 without a result file', async () => {
    project = await workspaceProject({
      'evals/fix.yaml': `workspace:
  template: ./app
  hooks:
    before_all: { command: 'touch "$MARKS/before_all"' }
evalcases:
${agentCase('fix-1', 'fix', FIXED)}`,
    });
    const run = await runAgentv(
      ['eval', 'evals/fix.yaml', '--dry-run', '--out', 'out.jsonl'],
      project.dir,
      { MARKS: project.dir },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('dry run: 1 case has a workspace and is not run');
    expect(run.stdout).toContain('run before_all: touch "$MARKS/before_all"');
    expect(existsSync(project.file('before_all'))).toBe(false);
    expect(existsSync(project.file('out.jsonl'))).toBe(false);
  });
});

describe('a run stopped by a workspace setup error', () => {
  it('still lists the workspaces it kept before it stopped', async () => {
    project = await workspaceProject({
      'evals/a.yaml': `workspace:
  template: ./app
evalcases:
${agentCase('lazy', 'lazy', FIXED)}`,
      'evals/b.yaml': `workspace:
  template: ./app
  hooks:
    before_all: { command: "echo 'database seed failed' >&2; exit 3" }
evalcases:
${agentCase('fix', 'fix', FIXED)}`,
    });
    const root = await workspaceRoot();
    const run = await runAgentv(
      [
        'eval',
        'evals/a.yaml',
        'evals/b.yaml',
        '--workers',
        '1',
        '--out',
        'out.jsonl',
        '--workspace-root',
        root,
      ],
      project.dir,
    );
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('database seed failed');
    const [lazy] = parseJsonl(readFileSync(project.file('out.jsonl'), 'utf8'));
    expect(lazy).toMatchObject({ eval_id: 'lazy', passed: false });
    const keptAt: string = lazy!.workspace.kept_at;
    expect(existsSync(keptAt)).toBe(true);
    expect(run.stderr).toContain('Kept 1 workspace');
    expect(run.stderr).toContain(`lazy  ${keptAt}`);
  });
});
