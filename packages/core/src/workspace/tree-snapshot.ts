import { lstatSync, readdirSync, type Stats } from 'node:fs';
import { join } from 'node:path';

/** What one path of a folder was when a snapshot was taken. */
export interface TreeEntry {
  type: 'file' | 'dir' | 'link' | 'other';
  /** Permission bits. */
  mode: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

/** Relative paths (`/`-separated, parents before children) to their entries. */
export type TreeSnapshot = Map<string, TreeEntry>;

/**
 * Which paths a walk leaves out: `skip` paths and everything under them are not
 * recorded (and, on restore, neither deleted nor restored).
 */
export type SkipPath = (relativePath: string) => boolean;

/**
 * Records every path under `root` (not `root` itself), without following
 * symbolic links. Synchronous on purpose: a few thousand `lstat` calls take a
 * fraction of the time the same calls take through the thread pool.
 */
export function snapshotTree(root: string, skip?: SkipPath): TreeSnapshot {
  const snapshot: TreeSnapshot = new Map();
  walk(root, '', snapshot, skip);
  return snapshot;
}

function walk(root: string, relative: string, snapshot: TreeSnapshot, skip?: SkipPath): void {
  const names = readdirSync(relative === '' ? root : join(root, relative)).sort();
  for (const name of names) {
    const path = relative === '' ? name : `${relative}/${name}`;
    if (skip?.(path)) continue;
    const entry = treeEntry(lstatSync(join(root, path)));
    snapshot.set(path, entry);
    if (entry.type === 'dir') walk(root, path, snapshot, skip);
  }
}

export function treeEntry(stats: Stats): TreeEntry {
  return {
    type: stats.isFile()
      ? 'file'
      : stats.isDirectory()
        ? 'dir'
        : stats.isSymbolicLink()
          ? 'link'
          : 'other',
    mode: stats.mode & 0o7777,
    size: stats.size,
    mtimeMs: stats.mtimeMs,
    ctimeMs: stats.ctimeMs,
    ino: stats.ino,
  };
}

/**
 * Whether a path is unchanged. A directory is unchanged when its type and mode
 * are (its entries are compared one by one); anything else when its inode,
 * change time, size and mode are: every write, `chmod`, rename or replacement
 * changes the change time, which no program can set back.
 */
export function sameEntry(a: TreeEntry, b: TreeEntry): boolean {
  if (a.type !== b.type || a.mode !== b.mode) return false;
  if (a.type === 'dir') return true;
  return a.ino === b.ino && a.ctimeMs === b.ctimeMs && a.size === b.size && a.mtimeMs === b.mtimeMs;
}
