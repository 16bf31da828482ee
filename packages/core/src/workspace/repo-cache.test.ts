import { chmodSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
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
} from './test-support/workspace-fixtures.js';
import { isWorkspaceSetupError } from './workspace-errors.js';

const cleanup: string[] = [];
afterEach(() => {
  for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup() {
  const base = tempFolder();
  cleanup.push(base);
  const repo = join(base, 'project');
  const commits = makeRepo(repo, [
    { 'a.txt': 'one\n' },
    { 'a.txt': 'two\n', 'docs/guide.md': 'guide\n', 'src/main.js': 'main\n' },
    { 'a.txt': 'three\n' },
  ]);
  const manager = createWorkspaceManager({
    root: join(base, 'root'),
    env: process.env,
    runId: 'r',
  });
  return { base, repo, commits, manager };
}

async function setupError(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(isWorkspaceSetupError(error)).toBe(true);
  return error as Error & { hint?: string };
}

describe('repositories of a workspace', () => {
  it('checks out a local repository (relative to the eval file) at a commit, an ancestor, sparse', async () => {
    const { base, commits, manager } = setup();
    const at = (overrides: object) =>
      workspaceConfig(base, { repos: [{ path: 'app', repo: './project', ...overrides }] });

    const head = await manager.acquire(at({}), caseInfo('head'));
    expect(git(join(head.path, 'app'), 'rev-parse', 'HEAD').trim()).toBe(commits[2]);
    const pinned = await manager.acquire(
      at({ commit: commits[1]!.slice(0, 10) }),
      caseInfo('pinned'),
    );
    expect(git(join(pinned.path, 'app'), 'show', 'HEAD:a.txt')).toBe('two\n');
    const ancestor = await manager.acquire(
      at({ commit: 'main', ancestor: 2 }),
      caseInfo('ancestor'),
    );
    expect(git(join(ancestor.path, 'app'), 'rev-parse', 'HEAD').trim()).toBe(commits[0]);
    const sparse = await manager.acquire(
      at({ commit: commits[1], sparse: ['docs'] }),
      caseInfo('sparse'),
    );
    expect(git(join(sparse.path, 'app'), 'ls-files').split('\n').filter(Boolean).sort()).toEqual([
      'a.txt',
      'docs/guide.md',
      'src/main.js',
    ]);
    expect(() => git(join(sparse.path, 'app'), 'cat-file', '-e', 'HEAD:src/main.js')).not.toThrow();
    expect(() => treeHash(join(sparse.path, 'app', 'src'))).toThrow();
    expect((await sparse.changes()).files).toEqual([]);
    await manager.close();
  });

  it('clones file:// URLs', async () => {
    const { repo, commits, base, manager } = setup();
    const lease = await manager.acquire(
      workspaceConfig(base, { repos: [{ path: '.', repo: `file://${repo}` }] }),
      caseInfo('url'),
    );
    expect(git(lease.path, 'rev-parse', 'HEAD').trim()).toBe(commits[2]);
    await manager.close();
  });

  it('stops the run naming the entry and git’s message for an unknown commit or a folder that is not a repository', async () => {
    const { base, manager } = setup();
    const unknown = await setupError(
      manager.acquire(
        workspaceConfig(base, {
          repos: [{ path: 'app', repo: './project', commit: 'no-such-branch' }],
        }),
        caseInfo('x'),
      ),
    );
    expect(unknown.message).toBe(
      'workspace repos[0] (./project → app): ./project has no commit no-such-branch',
    );
    expect(unknown.hint).toContain('commit');

    const notRepo = await setupError(
      manager.acquire(
        workspaceConfig(base, { repos: [{ path: 'app', repo: './missing' }] }),
        caseInfo('y'),
      ),
    );
    expect(notRepo.message).toMatch(
      /^workspace repos\[0\] \(\.\/missing → app\): could not clone \.\/missing: fatal: repository '.*missing' does not exist$/,
    );
    expect(notRepo.hint).toContain('is a git repository');
    await manager.close();
  });

  it('never changes the user’s repository or the run’s cache, whatever the agent does', async () => {
    const { base, repo, manager } = setup();
    const before = treeHash(repo);
    const config = workspaceConfig(base, { repos: [{ path: '.', repo: './project' }] });
    const lease = await manager.acquire(config, caseInfo('a'));
    const cache = join(base, 'root', readdirSync(join(base, 'root'))[0]!, 'repo-cache');
    const cacheBefore = treeHash(cache);
    writeFileSync(join(lease.path, 'a.txt'), 'agent\n');
    git(lease.path, 'add', '-A');
    git(lease.path, 'commit', '-q', '-m', 'agent commit');
    git(lease.path, 'gc', '-q', '--prune=now');
    expect(() => git(lease.path, 'push', '-q', 'origin', 'HEAD:refs/heads/agent-branch')).toThrow(
      /agentv-workspace-pushes-nowhere/,
    );
    for (const pack of readdirSync(join(lease.path, '.git/objects/pack'))) {
      chmodSync(join(lease.path, '.git/objects/pack', pack), 0o666);
      writeFileSync(join(lease.path, '.git/objects/pack', pack), 'clobbered');
    }
    rmSync(join(lease.path, 'a.txt'));
    expect(treeHash(cache)).toBe(cacheBefore);
    await lease.release({ keep: false });
    await manager.close();
    expect(treeHash(repo)).toBe(before);
  });
});
