import { copyFile, mkdir, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { copyTree } from './copy-tree.js';
import { runGit } from './git-command.js';
import { restoreTree } from './restore-tree.js';
import { snapshotTree, type TreeSnapshot } from './tree-snapshot.js';

/** A workspace as set up once per config: template copied, repositories checked out, `before_all` run. */
export interface PristineWorkspace {
  /** Never handed to a case; every workspace is a copy of it. */
  dir: string;
  /** Folders (relative, `''` for the root) that are git repositories. */
  repoRoots: readonly string[];
}

/** One workspace a case can work in. */
export interface WorkspaceCopy {
  readonly path: string;
  /** Its own snapshot from when it was pristine (inodes and change times of its files). */
  snapshot: TreeSnapshot;
  /** Where the pristine content of `path` is. */
  source(path: string): string;
}

export interface CopyOptions {
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Refresh the stat data in each repository's index, and keep that index to
   * put back on reset, so that `git status` in a reused workspace does not
   * reread every file (worth it for a pooled workspace, used many times).
   */
  keepIndexes?: { dir: string };
}

/** Copies `pristine` to `path` (a new folder) as `cp -a` does. */
export async function makeCopy(
  pristine: PristineWorkspace,
  path: string,
  options: CopyOptions,
): Promise<WorkspaceCopy> {
  await copyTree(pristine.dir, path, options.env);
  const overrides = new Map<string, string>();
  if (options.keepIndexes !== undefined) {
    await mkdir(options.keepIndexes.dir, { recursive: true });
    await Promise.all(
      pristine.repoRoots.map(async (root, index) => {
        const repo = join(path, root);
        await runGit(['update-index', '-q', '--refresh'], { cwd: repo, env: options.env }).catch(
          // Exit 1 means some files differ from HEAD (the template changed them): expected.
          () => undefined,
        );
        const kept = join(options.keepIndexes!.dir, `${index}.index`);
        const indexFile = join(repo, '.git', 'index');
        await copyFile(indexFile, kept);
        // With its time: git trusts an index's stat data by when the index was written.
        const { atime, mtime } = await stat(indexFile);
        await utimes(kept, atime, mtime);
        overrides.set(root === '' ? '.git/index' : `${root}/.git/index`, kept);
      }),
    );
  }
  return {
    path,
    snapshot: snapshotTree(path),
    source: (relative) => overrides.get(relative) ?? join(pristine.dir, relative),
  };
}

/**
 * Puts `copy` back to its pristine state (see `restoreTree`): the files of
 * repositories, `.git` folders included (HEAD, branches, objects an agent
 * added), like any other file, so one pass covers template files, checked-out
 * repositories and what `before_all` made. Throws when it cannot.
 */
export function resetCopy(copy: WorkspaceCopy): void {
  copy.snapshot = restoreTree(copy.path, copy.source, copy.snapshot);
}
