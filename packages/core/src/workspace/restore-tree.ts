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
import { removeTree } from './remove-tree.js';
import {
  entryType,
  matchesStats,
  type SkipPath,
  type TreeSnapshot,
  treeEntry,
  walkTree,
} from './tree-snapshot.js';

/**
 * Puts folder `target` back the way `expected` (its own snapshot, taken when
 * it was pristine) recorded it: what was added is deleted, what differs or
 * went missing is copied again from `source(path)` (in an untouched copy of
 * the same tree), with its mode and modification time. Unchanged files are
 * not read. Returns `target`'s snapshot as it now is: `expected`, updated in
 * place. Throws when something cannot be put back (the caller then makes a new
 * copy, and `expected` is no use any more).
 */
export function restoreTree(
  target: string,
  source: (path: string) => string,
  expected: TreeSnapshot,
  skip?: SkipPath,
): TreeSnapshot {
  // One walk, comparing as it goes: an unchanged path costs one lstat and one lookup.
  const fix: string[] = [];
  // Folders whose entries may have changed: a folder's change time moves whenever an entry
  // is added, removed or renamed in it, so only their entries are checked for being missing.
  const touched = new Set<string>(['']);
  walkTree(target, skip, (path, stats) => {
    const want = expected.get(path);
    if (want === undefined || want.type !== entryType(stats)) {
      removeTree(`${target}/${path}`);
      touched.add(parentOf(path));
      return false;
    }
    if (want.type === 'dir') {
      if (want.ino !== stats.ino || want.ctimeMs !== stats.ctimeMs) touched.add(path);
      if (want.mode !== (stats.mode & 0o7777)) fix.push(path);
    } else if (!matchesStats(want, stats)) {
      fix.push(path);
    }
    return true;
  });
  const fixing = new Set(fix);
  for (const [path, want] of expected) {
    if (fixing.has(path) || !touched.has(parentOf(path))) continue;
    if (skip?.(path)) continue;
    const stats = lstatSync(`${target}/${path}`, { throwIfNoEntry: false });
    if (stats === undefined) {
      fixing.add(path);
      // A missing folder's entries are missing too.
      if (want.type === 'dir') touched.add(path);
    }
  }
  // Only the root was looked at and nothing needs fixing: what was added is gone already.
  if (fixing.size === 0 && touched.size === 1) return expected;
  // Updated in place: the snapshot belongs to `target`, and a copy of thousands of entries
  // per case is not free.
  const restored = expected;
  // In snapshot order: parents before children.
  for (const [path, want] of expected) {
    if (!fixing.has(path)) continue;
    const to = `${target}/${path}`;
    const stats = lstatSync(to, { throwIfNoEntry: false });
    if (stats?.isDirectory() && want.type === 'dir') {
      chmodSync(to, want.mode);
    } else {
      if (stats !== undefined) removeTree(to);
      copyEntry(source(path), to, want.type);
    }
    restored.set(path, treeEntry(lstatSync(to)));
    touched.add(parentOf(path));
  }
  // Folders changed by the agent or by the fixes above: their times are new.
  for (const path of touched) {
    if (path === '' || !expected.has(path)) continue;
    const stats = lstatSync(`${target}/${path}`, { throwIfNoEntry: false });
    if (stats !== undefined) restored.set(path, treeEntry(stats));
  }
  return restored;
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
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
