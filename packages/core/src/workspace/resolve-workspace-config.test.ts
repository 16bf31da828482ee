import { describe, expect, it } from 'vitest';
import {
  mergeWorkspaceLayers,
  repoSource,
  resolveWorkspaceConfig,
} from './resolve-workspace-config.js';

describe('repoSource', () => {
  it('reads URLs, GitHub shorthand and local paths as upstream AgentV does, plus local paths', () => {
    const base = '/p/evals';
    expect(repoSource('https://example.com/a.git', base)).toEqual({
      kind: 'remote',
      url: 'https://example.com/a.git',
    });
    expect(repoSource('git@github.com:org/a.git', base)).toEqual({
      kind: 'remote',
      url: 'git@github.com:org/a.git',
    });
    expect(repoSource('sympy/sympy', base)).toEqual({
      kind: 'remote',
      url: 'https://github.com/sympy/sympy.git',
    });
    expect(repoSource('file:///srv/repo', base)).toEqual({ kind: 'local', path: '/srv/repo' });
    expect(repoSource('/srv/repo', base)).toEqual({ kind: 'local', path: '/srv/repo' });
    expect(repoSource('./fixtures/repo', base)).toEqual({
      kind: 'local',
      path: '/p/evals/fixtures/repo',
    });
    expect(repoSource('../repo', base)).toEqual({ kind: 'local', path: '/p/repo' });
    expect(repoSource('fixtures/nested/repo', base)).toEqual({
      kind: 'local',
      path: '/p/evals/fixtures/nested/repo',
    });
  });
});

describe('resolveWorkspaceConfig', () => {
  it('applies defaults, drops hooks without a command or all of them when disabled, and keys by value', () => {
    const config = resolveWorkspaceConfig({
      baseDir: '/p',
      hooks: { beforeEach: { timeoutMs: 5 }, afterEach: { command: 'x', cwd: '/p/s' } },
    });
    expect(config).toEqual({
      isolation: 'per_case',
      mode: 'pooled',
      hooks: { afterEach: { command: 'x', cwd: '/p/s' } },
      baseDir: '/p',
      key: expect.any(String),
    });
    const disabled = resolveWorkspaceConfig({
      baseDir: '/p',
      hooks: { enabled: false, afterEach: { command: 'x' } },
    });
    expect(disabled.hooks).toEqual({});
    const same = resolveWorkspaceConfig({
      baseDir: '/p',
      hooks: { afterEach: { cwd: '/p/s', command: 'x' } },
    });
    expect(same.key).toBe(config.key);
    expect(resolveWorkspaceConfig({ baseDir: '/p', mode: 'temp' }).key).not.toBe(config.key);
  });

  it('merges a case over a file key by key, hooks hook by hook and key by key', () => {
    const merged = mergeWorkspaceLayers(
      {
        baseDir: '/p/shared',
        template: '/p/t',
        repos: [{ path: 'r', repo: '/p/r' }],
        mode: 'temp',
        hooks: {
          enabled: false,
          beforeEach: { command: 'a', timeoutMs: 1 },
          afterAll: { command: 'z' },
        },
      },
      {
        baseDir: '/p/evals',
        isolation: 'shared',
        hooks: { enabled: true, beforeEach: { timeoutMs: 2 } },
      },
    );
    expect(merged).toEqual({
      baseDir: '/p/evals',
      template: '/p/t',
      repos: [{ path: 'r', repo: '/p/r' }],
      isolation: 'shared',
      mode: 'temp',
      hooks: {
        enabled: true,
        beforeEach: { command: 'a', timeoutMs: 2 },
        afterAll: { command: 'z' },
      },
    });
  });
});
