import { copyFile, mkdir, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileChange } from './file-changes.js';
import { runGit } from './git-command.js';

/** A repository's state when a case started: a tree object holding its files, untracked ones too. */
export interface GitBaseline {
  tree: string;
  /** The index that tree was written from (stat-fresh for the files then, so rereading is cheap). */
  index: string;
}

/** Where git keeps what AgentV records, outside the repository the agent sees. */
export interface GitScratch {
  /** A folder of AgentV's own for index files and objects. */
  dir: string;
  env: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal;
}

/**
 * Records repository `repoDir`'s working tree as a tree object: its tracked and
 * untracked files (ignored ones left out, as `git status` does). Nothing of
 * the repository changes: the index is a copy and new objects go to a
 * repository of AgentV's own (see `gitEnv`).
 */
export async function gitBaseline(repoDir: string, scratch: GitScratch): Promise<GitBaseline> {
  await makeGitDir(scratch.dir);
  const index = join(scratch.dir, 'baseline.index');
  await copyIndex(join(repoDir, '.git', 'index'), index);
  const tree = await writeTree(repoDir, index, scratch);
  return { tree, index };
}

/**
 * What changed in `repoDir` since `baseline`, paths and diff prefixed with
 * `prefix` (the repository's folder inside the workspace, `''` or ending in
 * `/`). The diff is cut after `maxDiffBytes`.
 */
export async function gitChanges(
  repoDir: string,
  prefix: string,
  baseline: GitBaseline,
  scratch: GitScratch,
  maxDiffBytes: number,
): Promise<{ files: FileChange[]; diff: string }> {
  const index = join(scratch.dir, 'now.index');
  await copyIndex(baseline.index, index);
  const tree = await writeTree(repoDir, index, scratch);
  if (tree === baseline.tree) return { files: [], diff: '' };
  const options = { cwd: repoDir, env: scratch.env, gitEnv: gitEnv(repoDir, index, scratch) };
  const common = ['diff', '--no-renames', '--no-ext-diff', '--no-textconv', '--no-color'];
  const [numstat, status, diff] = await Promise.all([
    runGit([...common, '--numstat', '-z', baseline.tree, tree], options),
    runGit([...common, '--name-status', '-z', baseline.tree, tree], options),
    runGit(
      [...common, `--src-prefix=a/${prefix}`, `--dst-prefix=b/${prefix}`, baseline.tree, tree],
      { ...options, maxStdoutBytes: maxDiffBytes },
    ),
  ]);
  return { files: fileChanges(prefix, numstat, status), diff };
}

async function writeTree(repoDir: string, index: string, scratch: GitScratch): Promise<string> {
  const options = {
    cwd: repoDir,
    env: scratch.env,
    gitEnv: gitEnv(repoDir, index, scratch),
    ...(scratch.signal === undefined ? {} : { signal: scratch.signal }),
  };
  // Full stat checks (git's default): comparing only whole-second times and sizes, which a
  // fresh copy would pass without rereading, misses a same-size edit made within a second.
  await runGit(['add', '-A', '--ignore-errors'], options);
  return (await runGit(['write-tree'], options)).trim();
}

/**
 * Copies an index file with its modification time: git compares file times in
 * whole seconds and trusts an entry only if the file is older than the index
 * was when written ("racy git"); a copy stamped now would hide a same-size
 * edit made in the same second as the one before it.
 */
async function copyIndex(from: string, to: string): Promise<void> {
  try {
    await copyFile(from, to);
    const { atime, mtime } = await stat(from);
    await utimes(to, atime, mtime);
  } catch (error) {
    // A repository without an index yet (nothing checked out): git starts from none.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Git pointed at a repository of AgentV's own in `scratch.dir` (its config,
 * its objects, reading the workspace's objects as alternates) with the
 * workspace as work tree: the workspace's `.git/config` is never read, so
 * nothing an agent put there (a `clean` filter, say) runs.
 */
function gitEnv(repoDir: string, index: string, scratch: GitScratch): Record<string, string> {
  return {
    GIT_DIR: join(scratch.dir, 'git'),
    GIT_WORK_TREE: repoDir,
    GIT_INDEX_FILE: index,
    GIT_ALTERNATE_OBJECT_DIRECTORIES: join(repoDir, '.git', 'objects'),
  };
}

/** The smallest folder git takes for a repository: HEAD, objects, refs and a config. */
async function makeGitDir(dir: string): Promise<void> {
  const gitDir = join(dir, 'git');
  await mkdir(join(gitDir, 'objects'), { recursive: true });
  await mkdir(join(gitDir, 'refs'), { recursive: true });
  await writeFile(join(gitDir, 'HEAD'), 'ref: refs/heads/main\n');
  await writeFile(
    join(gitDir, 'config'),
    '[core]\n\trepositoryformatversion = 0\n\tbare = false\n',
  );
}

/** `--numstat -z` gives counts (`-` for a binary file), `--name-status -z` the status. */
function fileChanges(prefix: string, numstat: string, nameStatus: string): FileChange[] {
  const statuses = new Map<string, string>();
  const fields = nameStatus.split('\0');
  for (let i = 0; i + 1 < fields.length; i += 2) {
    statuses.set(fields[i + 1] as string, fields[i] as string);
  }
  const files: FileChange[] = [];
  for (const record of numstat.split('\0')) {
    const match = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(record);
    if (match === null) continue;
    const [, added, removed, path] = match as unknown as [string, string, string, string];
    const letter = statuses.get(path);
    const status = letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : 'modified';
    files.push({
      path: `${prefix}${path}`,
      status,
      ...(added === '-' ? { binary: true as const } : {}),
      insertions: added === '-' ? 0 : Number(added),
      deletions: removed === '-' ? 0 : Number(removed),
    });
  }
  return files;
}
