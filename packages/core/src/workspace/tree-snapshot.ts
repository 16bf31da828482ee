import { lstatSync, readdirSync, type Stats } from 'node:fs';
import type { PathStats } from './parallel-lstat.js';

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
  walkTree(root, skip, (path, stats) => {
    snapshot.set(path, treeEntry(stats));
    return true;
  });
  return snapshot;
}

/**
 * Calls `visit` for every path under `root`, parents before children, in no
 * particular order otherwise. `visit` returns false to skip a folder's content.
 */
export function walkTree(
  root: string,
  skip: SkipPath | undefined,
  visit: (path: string, stats: Stats) => boolean,
): void {
  const pending = [''];
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    const prefix = folder === '' ? '' : `${folder}/`;
    for (const name of readdirSync(folder === '' ? root : `${root}/${folder}`)) {
      const path = `${prefix}${name}`;
      if (skip?.(path)) continue;
      const stats = lstatSync(`${root}/${path}`);
      if (visit(path, stats) !== false && stats.isDirectory()) pending.push(path);
    }
  }
}

export function treeEntry(stats: PathStats): TreeEntry {
  return {
    type: entryType(stats),
    mode: stats.mode & 0o7777,
    size: stats.size,
    mtimeMs: stats.mtimeMs,
    ctimeMs: stats.ctimeMs,
    ino: stats.ino,
  };
}

export function entryType(stats: PathStats): TreeEntry['type'] {
  return stats.isFile()
    ? 'file'
    : stats.isDirectory()
      ? 'dir'
      : stats.isSymbolicLink()
        ? 'link'
        : 'other';
}

/** `sameEntry(entry, treeEntry(stats))`, without making the entry. */
export function matchesStats(entry: TreeEntry, stats: PathStats): boolean {
  if (entry.mode !== (stats.mode & 0o7777) || entry.type !== entryType(stats)) return false;
  if (entry.type === 'dir') return true;
  return (
    entry.ino === stats.ino &&
    entry.ctimeMs === stats.ctimeMs &&
    entry.size === stats.size &&
    entry.mtimeMs === stats.mtimeMs
  );
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
