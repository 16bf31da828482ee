import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processAlive } from '../support/processes.js';
import { type Project, parseJsonl, runAgentv } from '../support/project.js';
import {
  agentCase,
  answerOf,
  foldersIn,
  git,
  treeHash,
  workspaceProject,
} from '../support/workspaces.js';

let project: Project | undefined;
const scratch: string[] = [];
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
  for (const dir of scratch.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A fresh folder for `--workspace-root`, removed after the test. */
async function workspaceRoot(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentv-ws-root-'));
  scratch.push(dir);
  return dir;
}

const FIXED = `- { name: fixed, type: file, path: src/sum.js, contains: "a + b" }
- { name: changed, type: diff, must_change: [src/sum.js], must_not_change: [README.md] }`;

function results(file = 'out.jsonl') {
  return parseJsonl(readFileSync(project!.file(file), 'utf8'));
}

describe('workspaces through agentv eval', () => {
  for (const mode of ['pooled', 'temp'] as const) {
    it(`${mode}: the agent works in a copy of the template; graders judge it; failed ones are kept and listed`, async () => {
      const root = await workspaceRoot();
      project = await workspaceProject({
        'evals/fix.yaml': `workspace:
  template: ./app
  mode: ${mode}
  hooks:
    before_each: { command: "echo ready > PREPARED" }
evalcases:
${agentCase('fix-1', 'fix', FIXED)}${agentCase('lazy', 'lazy', FIXED)}${agentCase('fix-2', 'fix', FIXED)}`,
      });
      const template = treeHash(project.file('evals/app'));
      const run = await runAgentv(
        [
          'eval',
          'evals/fix.yaml',
          '--out',
          'out.jsonl',
          '--workers',
          '2',
          '--workspace-root',
          root,
        ],
        project.dir,
      );
      expect(run.code, run.stderr).toBe(1);
      const lines = results();
      const byId = Object.fromEntries(lines.map((line) => [line.eval_id, line]));
      for (const id of ['fix-1', 'fix-2']) {
        expect(byId[id]).toMatchObject({
          passed: true,
          workspace: { files_changed: 1, insertions: 1, deletions: 1 },
        });
        expect(byId[id].workspace.kept_at).toBeUndefined();
        // {WORKSPACE}, AGENTV_WORKSPACE and the cwd name the same folder, under --workspace-root,
        // and before_each ran in it first (its file is not among the changes).
        const answer = answerOf(byId[id]);
        expect(answer.cwd).toBe(answer.workspace);
        expect(answer.arg).toBe(answer.workspace);
        expect(answer.cwd.startsWith(root)).toBe(true);
        expect(answer.prepared).toBe(true);
      }
      expect(byId.lazy).toMatchObject({ passed: false, workspace: { files_changed: 0 } });
      const keptAt: string = byId.lazy.workspace.kept_at;
      expect(keptAt.startsWith(root)).toBe(true);
      expect(readFileSync(path.join(keptAt, 'src/sum.js'), 'utf8')).toContain('a - b');
      expect(run.stderr).toContain(`Kept 1 workspace`);
      expect(run.stderr).toContain(`lazy  ${keptAt}`);
      // The diff and the file list, beside the result file.
      const saved = project.file('out.workspaces');
      expect(readdirSync(saved).sort()).toEqual(
        ['fix-1.diff', 'fix-1.json', 'fix-2.diff', 'fix-2.json', 'lazy.json'].sort(),
      );
      expect(readFileSync(path.join(saved, 'fix-1.diff'), 'utf8')).toContain(
        '+export const sum = (a, b) => a + b;',
      );
      expect(JSON.parse(readFileSync(path.join(saved, 'lazy.json'), 'utf8'))).toMatchObject({
        eval_id: 'lazy',
        kept_at: keptAt,
        files: [],
      });
      expect(run.stdout).toContain('Workspace changes: out.workspaces/ (3 files)');
      // Passing cases' workspaces are gone; the run left nothing but the kept one.
      const left = foldersIn(root).filter((name) => name.startsWith('agentv-run-'));
      expect(left).toEqual([]);
      expect(treeHash(project.file('evals/app'))).toBe(template);
    });
  }

  it('never changes the template, whatever agents write, delete or chmod', async () => {
    project = await workspaceProject({
      'evals/mess.yaml': `workspace: { template: ./app }
evalcases:
${agentCase('mess-1', 'mess', '- { type: file, path: src/new.js, exists: true }')}${agentCase('mess-2', 'mess', '- { type: file, path: README.md, absent: true }')}${agentCase('mess-3', 'mess', '- { type: file, path: src/new.js, exists: true }')}`,
      'evals/mess-temp.yaml': `workspace: { template: ./app, mode: temp }
evalcases:
${agentCase('mess-4', 'mess', '- { type: file, path: src/new.js, exists: true }')}`,
    });
    const before = treeHash(project.file('evals/app'));
    const run = await runAgentv(
      [
        'eval',
        'evals',
        '--out',
        'out.jsonl',
        '--workers',
        '2',
        '--keep-workspaces',
        '--workspace-root',
        await workspaceRoot(),
      ],
      project.dir,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(treeHash(project.file('evals/app'))).toBe(before);
    const lines = results();
    expect(lines.every((line) => line.workspace.files_changed === 3)).toBe(true);
    // --keep-workspaces keeps passing cases' too; each holds what its agent left.
    expect(run.stderr).toContain('Kept 4 workspaces');
    for (const line of lines) {
      expect(readFileSync(path.join(line.workspace.kept_at, 'src/sum.js'), 'utf8')).toBe('broken');
      await rm(line.workspace.kept_at, { recursive: true, force: true });
    }
  });

  for (const mode of ['pooled', 'temp'] as const) {
    it(`${mode}: no case sees another's files, under 4 workers`, async () => {
      const ids = Array.from({ length: 8 }, (_, index) => `case-${index + 1}`);
      project = await workspaceProject({
        'evals/markers.yaml': `workspace: { template: ./app, mode: ${mode} }
evalcases:
${ids.map((id) => agentCase(id, 'marker', '- { type: code_judge, script: node ../judges/only-my-marker.mjs }')).join('')}`,
      });
      const run = await runAgentv(
        ['eval', 'evals/markers.yaml', '--out', 'out.jsonl', '--workers', '4'],
        project.dir,
      );
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      const lines = results();
      expect(lines).toHaveLength(8);
      for (const line of lines) expect(line.hits).toEqual([`saw ${line.eval_id}.marker`]);
      // Four at a time: the workspaces of cases that ran together were different folders.
      expect(new Set(lines.map((line) => answerOf(line).cwd)).size).toBeGreaterThan(1);
    });
  }

  it('shared: one workspace for the file, before_all once, changes measured per case', async () => {
    project = await workspaceProject({
      'evals/shared.yaml': `workspace:
  template: ./app
  isolation: shared
  hooks:
    before_all: { command: "echo once >> ALL" }
evalcases:
${agentCase('one', 'marker', '- { type: file, path: ALL, equals: "once\\n" }')}${agentCase('two', 'marker', '- { type: file, path: one.marker, exists: true }')}`,
    });
    const run = await runAgentv(
      ['eval', 'evals/shared.yaml', '--out', 'out.jsonl', '--workers', '1'],
      project.dir,
    );
    expect(run.code, run.stderr).toBe(0);
    const [one, two] = results();
    expect(answerOf(one!).cwd).toBe(answerOf(two!).cwd);
    // Each case's changes start when it starts: the second sees only its own marker.
    expect(one!.workspace.files_changed).toBe(1);
    expect(two!.workspace.files_changed).toBe(1);
    expect(readFileSync(project.file('out.workspaces/two.json'), 'utf8')).toContain('two.marker');
  });

  it('checks a repository out at a commit, and measures changes with git', async () => {
    project = await workspaceProject({
      'evals/repo.yaml': 'placeholder',
    });
    const origin = project.file('origin');
    await writeFile(project.file('.gitkeep'), '');
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(path.join(origin, 'src'), { recursive: true });
    git(origin, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(origin, 'src/sum.js'), 'export const sum = (a, b) => a - b;\n');
    writeFileSync(path.join(origin, 'README.md'), '# app\n');
    git(origin, 'add', '.');
    git(origin, 'commit', '-q', '-m', 'buggy');
    const buggy = git(origin, 'rev-parse', 'HEAD');
    writeFileSync(path.join(origin, 'src/sum.js'), 'export const sum = (a, b) => a + b;\n');
    git(origin, 'commit', '-q', '-am', 'fixed');
    await writeFile(
      project.file('evals/repo.yaml'),
      `workspace:
  repos:
    - { path: ., repo: ../origin, commit: ${buggy} }
evalcases:
${agentCase('fix', 'fix', FIXED)}${agentCase('lazy', 'lazy', '- { type: file, path: src/sum.js, contains: "a - b" }')}`,
    );
    const run = await runAgentv(['eval', 'evals/repo.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code, run.stderr).toBe(0);
    const byId = Object.fromEntries(results().map((line) => [line.eval_id, line]));
    expect(byId.fix.workspace).toEqual({ files_changed: 1, insertions: 1, deletions: 1 });
    expect(readFileSync(project.file('out.workspaces/fix.diff'), 'utf8')).toContain(
      'diff --git a/src/sum.js b/src/sum.js',
    );
    // The origin is as it was: still at the fixed commit.
    expect(git(origin, 'log', '--format=%s')).toBe('fixed\nbuggy');
  });
});

describe('workspace hooks through agentv eval', () => {
  it('a failing before_all stops the run with its stderr, exit 2 and no stack', async () => {
    project = await workspaceProject({
      'evals/e.yaml': `workspace:
  template: ./app
  hooks:
    before_all: { command: "echo 'database seed failed' >&2; exit 3" }
evalcases:
${agentCase('fix', 'fix', FIXED)}`,
    });
    const run = await runAgentv(['eval', 'evals/e.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('before_all');
    expect(run.stderr).toContain('database seed failed');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('a failing before_each makes the case an error naming the hook; the others run', async () => {
    project = await workspaceProject({
      'evals/e.yaml': `workspace:
  template: ./app
  hooks:
    before_each: { command: 'if [ "$AGENTV_EVAL_ID" = broken ]; then echo no fixture >&2; exit 4; fi' }
evalcases:
${agentCase('fix', 'fix', FIXED)}${agentCase('broken', 'fix', FIXED)}`,
    });
    const root = await workspaceRoot();
    const run = await runAgentv(
      ['eval', 'evals/e.yaml', '--out', 'out.jsonl', '--workspace-root', root],
      project.dir,
    );
    expect(run.code).toBe(2);
    const byId = Object.fromEntries(results().map((line) => [line.eval_id, line]));
    expect(byId.fix.passed).toBe(true);
    expect(byId.broken.error).toContain('before_each');
    expect(byId.broken.error).toContain('no fixture');
    expect(byId.broken.attempts).toBe(0);
  });

  it('a hanging hook is killed with its process group at its timeout', async () => {
    // 5 s: room for the shell to start the sleeper and write its pid on a busy machine.
    project = await workspaceProject({
      'evals/e.yaml': `workspace:
  template: ./app
  hooks:
    before_each:
      command: 'sleep 300 & echo $! > "$PID_DIR/sleeper.pid"; wait'
      timeout_ms: 5000
evalcases:
${agentCase('fix', 'fix', FIXED)}`,
    });
    const started = Date.now();
    const root = await workspaceRoot();
    const run = await runAgentv(
      ['eval', 'evals/e.yaml', '--out', 'out.jsonl', '--workspace-root', root],
      project.dir,
      { PID_DIR: project.dir },
    );
    expect(run.code, run.stderr).toBe(2);
    expect(Date.now() - started).toBeLessThan(60_000);
    const [line] = results();
    expect(line!.error).toContain('before_each');
    expect(line!.error).toContain('timed out');
    const pid = Number(readFileSync(project.file('sleeper.pid'), 'utf8'));
    await waitUntil(() => !processAlive(pid));
  });
});

describe('workspace flags', () => {
  it('--workspace-root must be a folder that can be written', async () => {
    project = await workspaceProject({
      'evals/e.yaml': `workspace: { template: ./app }
evalcases:
${agentCase('fix', 'fix', FIXED)}`,
      'a-file': 'x',
    });
    const run = await runAgentv(
      ['eval', 'evals/e.yaml', '--workspace-root', 'a-file'],
      project.dir,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('cannot use --workspace-root a-file: it is not a folder');
    expect(existsSync(project.file('.agentv/results'))).toBe(false);
  });

  it("a target's relative cwd and program are found in the template, not beside the eval file", async () => {
    project = await workspaceProject({
      'evals/app/tools/run.sh': '#!/bin/sh\nprintf "ran in %s" "$PWD"\n',
      'evals/e.yaml': `execution: { target: tool }
workspace: { template: ./app }
evalcases:
${agentCase('tool', 'x', '- { type: contains, value: ran in }')}`,
    });
    const { chmodSync } = await import('node:fs');
    chmodSync(project.file('evals/app/tools/run.sh'), 0o755);
    const targets = readFileSync(project.file('.agentv/targets.yaml'), 'utf8');
    await writeFile(
      project.file('.agentv/targets.yaml'),
      `${targets}  - name: tool
    provider: cli
    cwd: tools
    command_template: ./run.sh
`,
    );
    const validate = await runAgentv(['validate', 'evals/e.yaml'], project.dir);
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    const run = await runAgentv(['eval', 'evals/e.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code, run.stderr).toBe(0);
    const [line] = results();
    expect(line!.candidate_answer).toMatch(/^ran in \/.+\/tools$/);
    expect(line!.candidate_answer.startsWith(`ran in ${project.file('evals')}`)).toBe(false);
  });

  it("{WORKSPACE} in a case without a workspace is that case's error with a hint", async () => {
    project = await workspaceProject({
      'evals/e.yaml': `evalcases:
${agentCase('plain', 'lazy', '- { type: contains, value: lazy }')}`,
    });
    const run = await runAgentv(['eval', 'evals/e.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(2);
    expect(results()[0]!.error).toContain('{WORKSPACE} has no value: the case has no workspace');
  });
});
