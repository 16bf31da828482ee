import {
  chmodSync,
  constants,
  copyFileSync,
  lstatSync,
  mkdirSync,
  readlinkSync,
  symlinkSync,
  utimesSync,
} from 'node:fs';
import { join } from 'node:path';
import { removeTree } from './remove-tree.js';
import {
  type SkipPath,
  sameEntry,
  snapshotTree,
  type TreeSnapshot,
  treeEntry,
} from './tree-snapshot.js';

/**
 * Puts folder `target` back the way `expected` (its own snapshot, taken when
 * it was pristine) recorded it: what was added is deleted, what differs or
 * went missing is copied again from `source(path)` (in an untouched copy of
 * the same tree), with its mode and modification time. Unchanged files are
 * not read. Returns `target`'s snapshot as it now is. Throws when something
 * cannot be put back (the caller then makes a new copy).
 */
export function restoreTree(
  target: string,
  source: (path: string) => string,
  expected: TreeSnapshot,
  skip?: SkipPath,
): TreeSnapshot {
  const current = snapshotTree(target, skip);
  let removed: string | undefined;
  for (const [path, entry] of current) {
    if (removed !== undefined && path.startsWith(`${removed}/`)) continue;
    const want = expected.get(path);
    if (want !== undefined && (want.type === entry.type || sameEntry(want, entry))) continue;
    removeTree(join(target, path));
    removed = path;
  }
  const restored: TreeSnapshot = new Map();
  for (const [path, want] of expected) {
    const entry = current.get(path);
    if (entry !== undefined && sameEntry(want, entry)) {
      restored.set(path, entry);
      continue;
    }
    const to = join(target, path);
    if (entry !== undefined && entry.type === 'dir' && want.type === 'dir') {
      chmodSync(to, want.mode);
    } else {
      if (entry !== undefined && entry.type === want.type) removeTree(to);
      copyEntry(source(path), to, want.type);
    }
    restored.set(path, treeEntry(lstatSync(to)));
  }
  return restored;
}

function copyEntry(from: string, to: string, type: string): void {
  const stats = lstatSync(from);
  switch (type) {
    case 'dir':
      mkdirSync(to);
      chmodSync(to, stats.mode & 0o7777);
      return;
    case 'file':
      copyFileSync(from, to, constants.COPYFILE_FICLONE);
      chmodSync(to, stats.mode & 0o7777);
      utimesSync(to, stats.atimeMs / 1000, stats.mtimeMs / 1000);
      return;
    case 'link':
      symlinkSync(readlinkSync(from), to);
      return;
    default:
      throw new Error(`cannot restore ${to}: not a file, folder or symbolic link`);
  }
}
