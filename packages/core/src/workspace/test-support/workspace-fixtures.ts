import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { WorkspaceConfig } from '../workspace-config.js';

/** A new temp folder for one test. */
export function tempFolder(prefix = 'ws-test'): string {
  return mkdtempSync(join(tmpdir(), `${prefix}-`));
}

/** Writes `files` (relative path → content) under `root`. */
export function writeFiles(root: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/**
 * A hash of everything under `root`: paths, types, modes, contents and link
 * targets (not times), so a test sees any change.
 */
export function treeHash(root: string): string {
  const hash = createHash('sha256');
  const walk = (relative: string) => {
    for (const name of readdirSync(join(root, relative)).sort()) {
      const path = relative === '' ? name : `${relative}/${name}`;
      const stats = lstatSync(join(root, path));
      hash.update(`${path}\0${stats.mode}\0`);
      if (stats.isSymbolicLink()) hash.update(readlinkSync(join(root, path)));
      else if (stats.isFile()) hash.update(readFileSync(join(root, path)));
      else if (stats.isDirectory()) walk(path);
      hash.update('\0');
    }
  };
  walk('');
  return hash.digest('hex');
}

/** Runs git in `cwd` with a fixed identity; returns stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    'git',
    [
      '-c',
      'user.email=test@example.com',
      '-c',
      'user.name=Test',
      '-c',
      'init.defaultBranch=main',
      ...args,
    ],
    { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

/** A git repository at `dir` with one commit per entry of `commits`; returns the commit ids. */
export function makeRepo(dir: string, commits: Record<string, string>[]): string[] {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q');
  const ids: string[] = [];
  commits.forEach((files, index) => {
    writeFiles(dir, files);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', `commit ${index + 1}`);
    ids.push(git(dir, 'rev-parse', 'HEAD').trim());
  });
  return ids;
}

/** A resolved workspace config with defaults, keyed by its content. */
export function workspaceConfig(
  baseDir: string,
  overrides: Partial<WorkspaceConfig>,
): WorkspaceConfig {
  const config: WorkspaceConfig = {
    isolation: 'per_case',
    mode: 'pooled',
    hooks: {},
    baseDir,
    key: '',
    ...overrides,
  };
  return { ...config, key: overrides.key ?? JSON.stringify({ ...config, key: undefined }) };
}

export const caseInfo = (evalId: string) => ({
  evalId,
  evalFile: '/evals/x.eval.yaml',
  target: 'agent',
});
