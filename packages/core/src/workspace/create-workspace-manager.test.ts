import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspaceManager } from './create-workspace-manager.js';
import {
  caseInfo,
  git,
  makeRepo,
  tempFolder,
  treeHash,
  workspaceConfig,
  writeFiles,
} from './test-support/workspace-fixtures.js';
import { isWorkspaceSetupError } from './workspace-errors.js';

const cleanup: string[] = [];
afterEach(() => {
  for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup(expectedCases?: ReadonlyMap<string, number>) {
  const base = tempFolder();
  cleanup.push(base);
  const template = join(base, 'template');
  writeFiles(template, {
    'README.md': 'hello\n',
    'src/app.js': 'line 1\nline 2\nline 3\n',
    'bin/run.sh': '#!/bin/sh\necho run\n',
  });
  chmodSync(join(template, 'bin/run.sh'), 0o755);
  symlinkSync('src/app.js', join(template, 'link-to-app'));
  symlinkSync('/etc/hostname', join(template, 'outside-link'));
  const root = join(base, 'root');
  const manager = createWorkspaceManager({
    root,
    env: process.env,
    runId: 'run-1',
    ...(expectedCases === undefined ? {} : { expectedCases }),
  });
  return { base, template, root, manager };
}

describe('createWorkspaceManager: a template', () => {
  it('gives each case a copy with modes and symbolic links as they are, and reports what the agent changed', async () => {
    const { template, manager } = setup();
    const before = treeHash(template);
    const lease = await manager.acquire(workspaceConfig(template, { template }), caseInfo('a'));
    expect(readFileSync(join(lease.path, 'README.md'), 'utf8')).toBe('hello\n');
    expect(statSync(join(lease.path, 'bin/run.sh')).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(lease.path, 'link-to-app'), 'utf8')).toBe('line 1\nline 2\nline 3\n');
    expect(execFileSync('readlink', [join(lease.path, 'outside-link')], { encoding: 'utf8' })).toBe(
      '/etc/hostname\n',
    );

    writeFileSync(join(lease.path, 'src/app.js'), 'line 1\nline two\nline 3\n');
    writeFileSync(join(lease.path, 'NOTES.md'), 'notes\n');
    unlinkSync(join(lease.path, 'README.md'));
    writeFileSync(join(lease.path, 'image.bin'), Buffer.from([0, 1, 2, 3]));
    chmodSync(join(lease.path, 'bin/run.sh'), 0o644);

    const changes = await lease.changes();
    expect(changes.files).toEqual([
      { path: 'NOTES.md', status: 'added', insertions: 1, deletions: 0 },
      { path: 'README.md', status: 'deleted', insertions: 0, deletions: 1 },
      { path: 'bin/run.sh', status: 'modified', insertions: 0, deletions: 0 },
      { path: 'image.bin', status: 'added', binary: true, insertions: 0, deletions: 0 },
      { path: 'src/app.js', status: 'modified', insertions: 1, deletions: 1 },
    ]);
    expect(changes.insertions).toBe(2);
    expect(changes.deletions).toBe(2);
    expect(changes.diff).toContain('Binary files /dev/null and b/image.bin differ');
    expect(changes.diff).toContain(
      'diff --git a/src/app.js b/src/app.js\n--- a/src/app.js\n+++ b/src/app.js\n@@ -1,3 +1,3 @@\n line 1\n-line 2\n+line two\n line 3\n',
    );
    expect(changes.diff).toContain('old mode 100755\nnew mode 100644');

    await lease.release({ keep: false });
    await manager.close();
    expect(treeHash(template)).toBe(before);
  });

  it('puts a pooled workspace back to pristine between cases, in place', async () => {
    const { template, manager } = setup();
    const config = workspaceConfig(template, { template });
    const first = await manager.acquire(config, caseInfo('a'));
    const pristine = treeHash(first.path);
    writeFileSync(join(first.path, 'src/app.js'), 'changed\n');
    writeFiles(first.path, { 'new/deep/file.txt': 'x' });
    unlinkSync(join(first.path, 'link-to-app'));
    symlinkSync('README.md', join(first.path, 'link-to-app'));
    chmodSync(join(first.path, 'src'), 0o500);
    rmSync(join(first.path, 'bin'), { recursive: true });
    await first.release({ keep: false });

    const second = await manager.acquire(config, caseInfo('b'));
    expect(second.path).toBe(first.path);
    expect(treeHash(second.path)).toBe(pristine);
    expect((await second.changes()).files).toEqual([]);
    await second.release({ keep: false });
    await manager.close();
  });

  it('gives a temp workspace to each case and removes it after', async () => {
    const { template, root, manager } = setup();
    const config = workspaceConfig(template, { template, mode: 'temp' });
    const first = await manager.acquire(config, caseInfo('a'));
    writeFileSync(join(first.path, 'marker-a'), '');
    await first.release({ keep: false });
    expect(existsSync(first.path)).toBe(false);
    const second = await manager.acquire(config, caseInfo('b'));
    expect(second.path).not.toBe(first.path);
    expect(existsSync(join(second.path, 'marker-a'))).toBe(false);
    await second.release({ keep: false });
    await manager.close();
    expect(readdirSync(root)).toEqual([]);
  });

  it('makes the next temp workspace while a case works when more cases are to come, pristine, and leaves none behind', async () => {
    const base = tempFolder();
    cleanup.push(base);
    const template = join(base, 'template');
    writeFiles(template, { 'README.md': 'hello\n' });
    const config = workspaceConfig(template, { template, mode: 'temp' });
    const { root, manager } = setup(new Map([[config.key, 3]]));
    const first = await manager.acquire(config, caseInfo('a'));
    writeFileSync(join(first.path, 'marker-a'), '');
    const folder = join(first.path, '..');
    const workspaces = () => readdirSync(folder).filter((name) => /^workspace-\d+$/.test(name));
    // Made in the background: waited for with a generous deadline.
    for (const deadline = Date.now() + 30_000; workspaces().length < 2 && Date.now() < deadline; )
      await new Promise((resolve) => setTimeout(resolve, 20));
    const ahead = workspaces().find((name) => join(folder, name) !== first.path);
    expect(ahead).toBeDefined();
    await first.release({ keep: false });
    expect(existsSync(first.path)).toBe(false);
    const second = await manager.acquire(config, caseInfo('b'));
    expect(second.path).toBe(join(folder, ahead!));
    expect(readdirSync(second.path)).toEqual(['README.md']);
    writeFileSync(join(second.path, 'README.md'), 'changed\n');
    expect((await second.changes()).files).toEqual([
      expect.objectContaining({ path: 'README.md', status: 'modified' }),
    ]);
    await second.release({ keep: false });
    // The third case's copy may still be being made: close waits for it and removes it.
    await manager.close();
    expect(readdirSync(root)).toEqual([]);
  });

  it('keeps the workspaces it is told to keep, outside the run folder, and removes everything else at close', async () => {
    const { template, root, manager } = setup();
    const config = workspaceConfig(template, { template });
    const failed = await manager.acquire(config, caseInfo('case/one'));
    const passed = await manager.acquire(config, caseInfo('case-two'));
    writeFileSync(join(failed.path, 'agent-output.txt'), 'wrong answer\n');
    const { keptAt } = await failed.release({ keep: true });
    await passed.release({ keep: false });
    expect(keptAt).toBe(join(root, 'run-1', 'case-one-agent'));
    expect(readFileSync(join(keptAt!, 'agent-output.txt'), 'utf8')).toBe('wrong answer\n');

    // The kept slot left the pool: the next case gets a pristine workspace elsewhere.
    const next = await manager.acquire(config, caseInfo('three'));
    expect(next.path).not.toBe(keptAt);
    expect(existsSync(join(next.path, 'agent-output.txt'))).toBe(false);
    await next.release({ keep: false });

    await manager.close();
    expect(manager.kept()).toEqual([keptAt]);
    expect(readdirSync(root)).toEqual(['run-1']);
    expect(readdirSync(join(root, 'run-1'))).toEqual(['case-one-agent']);
  });
});

describe('createWorkspaceManager: repositories', () => {
  function repoSetup() {
    const { base, template, root, manager } = setup();
    const repo = join(base, 'project');
    const commits = makeRepo(repo, [
      { 'src/lib.js': 'export const a = 1;\n', 'test/lib.test.js': 'test\n' },
      { 'src/lib.js': 'export const a = 2;\n', 'package.json': '{}\n', 'logo.png': '\0PNG' },
    ]);
    writeFiles(repo, { '.gitignore': 'node_modules/\n' });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'ignore');
    return { base, template, root, manager, repo, commits };
  }

  it('puts a repository back to its commit after an agent committed, switched branches and left files', async () => {
    const { base, manager, commits } = repoSetup();
    const config = workspaceConfig(base, {
      repos: [{ path: '.', repo: './project', commit: commits[1] }],
    });
    const first = await manager.acquire(config, caseInfo('a'));
    const pristine = treeHash(first.path);
    git(first.path, 'checkout', '-q', '-b', 'agent-work');
    writeFiles(first.path, {
      'src/lib.js': 'changed\n',
      'node_modules/x/index.js': 'x',
      'new.txt': 'n',
    });
    git(first.path, 'add', '-A');
    git(first.path, 'commit', '-q', '-m', 'agent');
    git(first.path, 'tag', 'agent-tag');
    writeFiles(first.path, { 'untracked.txt': 'u' });
    await first.release({ keep: false });

    const second = await manager.acquire(config, caseInfo('b'));
    expect(second.path).toBe(first.path);
    expect(treeHash(second.path)).toBe(pristine);
    expect(git(second.path, 'rev-parse', 'HEAD').trim()).toBe(commits[1]);
    expect(git(second.path, 'status', '--porcelain')).toBe('');
    expect(git(second.path, 'branch', '--list', 'agent-work')).toBe('');
    expect(git(second.path, 'tag', '--list')).toBe('');
    await second.release({ keep: false });
    await manager.close();
  });

  it('reports changes with git: untracked files at the baseline count as there, ignored ones are left out', async () => {
    const { base, manager } = repoSetup();
    const config = workspaceConfig(base, {
      repos: [{ path: 'app', repo: './project' }],
      hooks: { beforeEach: { command: 'echo draft > app/draft.txt' } },
    });
    const lease = await manager.acquire(config, caseInfo('a'));
    const app = join(lease.path, 'app');
    writeFiles(app, {
      'src/lib.js': 'export const a = 3;\n',
      'src/new.js': 'new\n',
      'node_modules/dep/index.js': 'ignored\n',
      'logo.png': '\0PNG2',
    });
    unlinkSync(join(app, 'package.json'));
    git(app, 'mv', 'test/lib.test.js', 'test/renamed.test.js');
    writeFileSync(join(app, 'draft.txt'), 'draft\nmore\n');

    const changes = await lease.changes();
    expect(changes.files).toEqual([
      { path: 'app/draft.txt', status: 'modified', insertions: 1, deletions: 0 },
      { path: 'app/logo.png', status: 'modified', binary: true, insertions: 0, deletions: 0 },
      { path: 'app/package.json', status: 'deleted', insertions: 0, deletions: 1 },
      { path: 'app/src/lib.js', status: 'modified', insertions: 1, deletions: 1 },
      { path: 'app/src/new.js', status: 'added', insertions: 1, deletions: 0 },
      { path: 'app/test/lib.test.js', status: 'deleted', insertions: 0, deletions: 1 },
      { path: 'app/test/renamed.test.js', status: 'added', insertions: 1, deletions: 0 },
    ]);
    expect(changes.diff).toContain('Binary files a/app/logo.png and b/app/logo.png differ');
    expect(changes.diff).toContain('--- a/app/src/lib.js\n+++ b/app/src/lib.js\n');
    // Measuring changed nothing the agent sees: its index still stages the rename only.
    expect(git(app, 'status', '--porcelain').split('\n')).toContain(
      'R  test/lib.test.js -> test/renamed.test.js',
    );
    await lease.release({ keep: false });
    await manager.close();
  });

  it('combines a template and repositories: template files outside and inside a checkout, reset together', async () => {
    const { base, template, manager, commits } = repoSetup();
    writeFiles(template, { 'app/local-config.json': '{"local":true}\n' });
    const config = workspaceConfig(base, {
      template,
      repos: [{ path: 'app', repo: './project', commit: commits[0] }],
    });
    const first = await manager.acquire(config, caseInfo('a'));
    expect(readFileSync(join(first.path, 'README.md'), 'utf8')).toBe('hello\n');
    expect(readFileSync(join(first.path, 'app/local-config.json'), 'utf8')).toBe(
      '{"local":true}\n',
    );
    expect(readFileSync(join(first.path, 'app/src/lib.js'), 'utf8')).toBe('export const a = 1;\n');
    const pristine = treeHash(first.path);
    writeFileSync(join(first.path, 'README.md'), 'agent\n');
    writeFileSync(join(first.path, 'app/src/lib.js'), 'agent\n');
    rmSync(join(first.path, 'app/local-config.json'));
    const changes = await first.changes();
    expect(changes.files.map((file) => `${file.status} ${file.path}`)).toEqual([
      'modified README.md',
      'deleted app/local-config.json',
      'modified app/src/lib.js',
    ]);
    await first.release({ keep: false });
    const second = await manager.acquire(config, caseInfo('b'));
    expect(treeHash(second.path)).toBe(pristine);
    await second.release({ keep: false });
    await manager.close();
  });

  it('keeps a workspace whose repository still works after the run removed its clone cache', async () => {
    const { base, root, manager, commits } = repoSetup();
    const config = workspaceConfig(base, {
      repos: [{ path: '.', repo: './project', commit: commits[0] }],
    });
    const lease = await manager.acquire(config, caseInfo('kept'));
    writeFileSync(join(lease.path, 'src/lib.js'), 'agent\n');
    const { keptAt } = await lease.release({ keep: true });
    await manager.close();
    expect(readdirSync(root)).toEqual(['run-1']);
    expect(git(keptAt!, 'log', '--format=%s')).toBe('commit 1\n');
    expect(git(keptAt!, 'status', '--porcelain')).toBe(' M src/lib.js\n');
    expect(git(keptAt!, 'fsck', '--no-progress')).toBe('');
  });
});

describe('createWorkspaceManager: setup errors', () => {
  it('stops the run when the template is not a folder', async () => {
    const { base, manager } = setup();
    const missing = join(base, 'no-such-template');
    const error = await manager
      .acquire(workspaceConfig(base, { template: missing }), caseInfo('a'))
      .catch((caught: unknown) => caught);
    expect(isWorkspaceSetupError(error)).toBe(true);
    expect((error as Error).message).toBe(`workspace template ${missing} is not a folder`);
    await manager.close();
  });
});

describe('createWorkspaceManager: isolation', () => {
  for (const mode of ['pooled', 'temp'] as const) {
    it(`lets no case see another's files, 4 at a time, ${mode}`, async () => {
      const { template, manager } = setup();
      const before = treeHash(template);
      const config = workspaceConfig(template, { template, mode });
      const seen: string[][] = [];
      const paths = new Set<string>();
      // Three rounds of four cases holding their workspaces at the same time.
      for (let round = 0; round < 3; round++) {
        const ids = [0, 1, 2, 3].map((slot) => round * 4 + slot);
        const leases = await Promise.all(
          ids.map((id) => manager.acquire(config, caseInfo(`case-${id}`))),
        );
        for (const [index, lease] of leases.entries()) {
          const id = ids[index] as number;
          paths.add(lease.path);
          seen.push(readdirSync(lease.path).filter((name) => name.startsWith('marker-')));
          writeFileSync(join(lease.path, `marker-${id}`), String(id));
          // What agents do: delete, chmod.
          rmSync(join(lease.path, 'README.md'));
          chmodSync(join(lease.path, 'src/app.js'), 0o600);
        }
        for (const [index, lease] of leases.entries()) {
          const changes = await lease.changes();
          expect(changes.files.filter((file) => file.path.startsWith('marker-'))).toEqual([
            { path: `marker-${ids[index]}`, status: 'added', insertions: 1, deletions: 0 },
          ]);
        }
        await Promise.all(leases.map((lease) => lease.release({ keep: false })));
      }
      expect(seen).toEqual(Array.from({ length: 12 }, () => []));
      if (mode === 'pooled') expect(paths.size).toBe(4);
      else expect(paths.size).toBe(12);
      await manager.close();
      expect(treeHash(template)).toBe(before);
    });
  }

  it('shares one workspace across cases with isolation shared; changes count from each case’s start', async () => {
    const { template, manager } = setup();
    const config = workspaceConfig(template, { template, isolation: 'shared' });
    const first = await manager.acquire(config, caseInfo('a'));
    writeFileSync(join(first.path, 'from-a.txt'), 'a\n');
    await first.release({ keep: false });
    const second = await manager.acquire(config, caseInfo('b'));
    expect(second.path).toBe(first.path);
    expect(readFileSync(join(second.path, 'from-a.txt'), 'utf8')).toBe('a\n');
    writeFileSync(join(second.path, 'from-a.txt'), 'a\nb\n');
    expect((await second.changes()).diff).toBe(
      'diff --git a/from-a.txt b/from-a.txt\n--- a/from-a.txt\n+++ b/from-a.txt\n@@ -1 +1,2 @@\n a\n+b\n',
    );
    const { keptAt } = await second.release({ keep: true });
    expect(existsSync(second.path)).toBe(true);
    await manager.close();
    expect(readFileSync(join(keptAt!, 'from-a.txt'), 'utf8')).toBe('a\nb\n');
  });

  it('sweeps run folders a killed run left under the root, and nothing else', async () => {
    const base = tempFolder();
    cleanup.push(base);
    const root = join(base, 'root');
    const dead = spawnSync('true').pid;
    writeFiles(root, {
      [`agentv-run-${dead}-abcdef/.agentv-run-folder`]: '',
      [`agentv-run-${dead}-ghijkl/user-file`]: 'not ours: no marker',
      'my-notes/file': 'x',
    });
    const manager = createWorkspaceManager({ root, env: process.env, runId: 'r' });
    const lease = await manager.acquire(workspaceConfig(base, {}), caseInfo('a'));
    expect(readdirSync(root).sort()).toEqual(
      [`agentv-run-${dead}-ghijkl`, 'my-notes', lease.path.split('/').at(-3)!].sort(),
    );
    await lease.release({ keep: false });
    await manager.close();
    expect(readdirSync(root).sort()).toEqual([`agentv-run-${dead}-ghijkl`, 'my-notes']);
  });

  it('removes the empty kept folders of earlier runs (their workspaces removed by the user), and nothing else', async () => {
    const base = tempFolder();
    cleanup.push(base);
    const root = join(base, 'root');
    writeFiles(root, {
      '0123456789abcdef/fix-a/file': 'a kept workspace, still there',
      'my-notes/file': 'x',
    });
    for (const empty of ['fedcba9876543210', 'run-mf3k2x-a1b2c3', 'empty-but-not-ours'])
      mkdirSync(join(root, empty));
    const manager = createWorkspaceManager({ root, env: process.env, runId: 'fedcba9876543210' });
    const lease = await manager.acquire(workspaceConfig(base, {}), caseInfo('a'));
    await lease.release({ keep: false });
    await manager.close();
    expect(readdirSync(root).sort()).toEqual([
      '0123456789abcdef',
      'empty-but-not-ours',
      'my-notes',
    ]);
    // A run that keeps nothing leaves no kept folder of its own either.
    expect(existsSync(join(root, 'fedcba9876543210'))).toBe(false);
  });

  it('makes its run folder in the temp directory without a root, where the watchdog sweeps after kill -9', async () => {
    const { template } = setup();
    const manager = createWorkspaceManager({ env: process.env, runId: 'r' });
    const lease = await manager.acquire(workspaceConfig(template, { template }), caseInfo('a'));
    const runFolder = join(lease.path, '..', '..');
    expect(runFolder.split('/').at(-1)).toMatch(new RegExp(`^agentv-workspaces-${process.pid}-`));
    await lease.release({ keep: false });
    await manager.close();
    expect(existsSync(runFolder)).toBe(false);
  });
});

describe('createWorkspaceManager: what measuring changes runs', () => {
  it('never runs a clean filter an agent configured in the workspace repository', async () => {
    const base = tempFolder();
    cleanup.push(base);
    makeRepo(join(base, 'project'), [{ 'a.txt': 'a\n' }]);
    const manager = createWorkspaceManager({
      root: join(base, 'root'),
      env: process.env,
      runId: 'r',
    });
    const lease = await manager.acquire(
      workspaceConfig(base, { repos: [{ path: '.', repo: './project' }] }),
      caseInfo('a'),
    );
    const proof = join(base, 'filter-ran');
    git(lease.path, 'config', 'filter.evil.clean', `touch ${proof}; cat`);
    writeFileSync(join(lease.path, '.gitattributes'), '* filter=evil\n');
    writeFileSync(join(lease.path, 'a.txt'), 'b\n');
    const changes = await lease.changes();
    expect(changes.files.map((file) => file.path)).toEqual(['.gitattributes', 'a.txt']);
    expect(existsSync(proof)).toBe(false);
    await lease.release({ keep: false });
    await manager.close();
  });

  it('sees a same-size edit made in the second the workspace was made, measured a second later', async () => {
    const base = tempFolder();
    cleanup.push(base);
    makeRepo(join(base, 'project'), [{ 'lib.js': 'export const a = 2;\n' }]);
    const manager = createWorkspaceManager({
      root: join(base, 'root'),
      env: process.env,
      runId: 'r',
    });
    const config = workspaceConfig(base, { repos: [{ path: '.', repo: './project' }] });
    for (const mode of ['pooled', 'temp'] as const) {
      const lease = await manager.acquire({ ...config, mode, key: mode }, caseInfo(mode));
      writeFileSync(join(lease.path, 'lib.js'), 'export const a = 3;\n');
      // git compares times in whole seconds: measure in the next one.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect((await lease.changes()).files.map((file) => file.path)).toEqual(['lib.js']);
      await lease.release({ keep: false });
    }
    await manager.close();
  });

  it('names files too large to diff, and cuts a diff past 1 MB with a note', async () => {
    const { template, manager } = setup();
    const lease = await manager.acquire(workspaceConfig(template, { template }), caseInfo('big'));
    writeFileSync(join(lease.path, 'huge.log'), 'x'.repeat(3 * 1024 * 1024));
    for (let i = 0; i < 30; i++) {
      writeFileSync(
        join(lease.path, `part-${String(i).padStart(2, '0')}.txt`),
        'line of text\n'.repeat(4000),
      );
    }
    const changes = await lease.changes();
    expect(changes.files).toHaveLength(31);
    expect(changes.files.find((file) => file.path === 'huge.log')).toEqual({
      path: 'huge.log',
      status: 'added',
      insertions: 0,
      deletions: 0,
    });
    expect(changes.insertions).toBe(30 * 4000);
    expect(Buffer.byteLength(changes.diff)).toBeLessThan(1024 * 1024 + 200);
    expect(changes.diff).toMatch(
      /… diff cut at 1 MB: the file list and line counts are complete\n$/,
    );
    await lease.release({ keep: false });
    await manager.close();
  });
});

describe('createWorkspaceManager: closing while cases start', () => {
  it('leaves nothing behind when the run closes while workspaces are being made', async () => {
    const { template, root, manager } = setup();
    const config = workspaceConfig(template, { template, mode: 'temp' });
    const starting = Array.from({ length: 3 }, (_, id) =>
      manager.acquire(config, caseInfo(`late-${id}`)).then(
        (lease) => lease.release({ keep: false }),
        (error: Error) => error.message,
      ),
    );
    await manager.close();
    await Promise.all(starting);
    expect(readdirSync(root)).toEqual([]);
  });
});
