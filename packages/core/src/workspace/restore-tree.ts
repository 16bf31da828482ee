import {
  chmodSync,
  constants,
  copyFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
  utimesSync,
} from 'node:fs';
import { lstatPaths, type PathStats } from './parallel-lstat.js';
import { removeTree } from './remove-tree.js';
import {
  entryType,
  matchesStats,
  type SkipPath,
  type TreeEntry,
  type TreeSnapshot,
  treeEntry,
} from './tree-snapshot.js';

/**
 * Puts folder `target` back the way `expected` (its own snapshot, taken when
 * it was pristine) recorded it: what was added is deleted, what differs or
 * went missing is copied again from `source(path)` (in an untouched copy of
 * the same tree), with its mode and modification time. Unchanged files are
 * not read. Returns `target`'s snapshot as it now is: `expected`, updated in
 * place (it belongs to `target` from then on). Throws when something cannot be
 * put back (the caller then makes a new copy, and `expected` is no use any
 * more).
 *
 * Every path of the snapshot costs one `lstat` (split with a helper thread when there are
 * thousands, see `lstatPaths`); a folder is listed (to find
 * what was added in it) only when its inode or change time moved, or when its
 * change time is too close to the last time it was seen as the snapshot
 * says: adding, removing or renaming an entry moves a folder's change time,
 * which no program can set back, but the file system's clock ticks coarsely.
 */
export function restoreTree(
  target: string,
  source: (path: string) => string,
  expected: TreeSnapshot,
  skip?: SkipPath,
): TreeSnapshot {
  const plan = planFor(target, expected, skip);
  const { paths, absolute, parents, seenAt } = plan;
  const count = paths.length;
  // 1: copied again (missing, different, or inside a folder that is).
  const broken = new Uint8Array(count);
  // Folders to list; -1 is `target` itself, always listed (it is not in the snapshot).
  const listed: number[] = [-1];
  const listedStats: PathStats[] = [];
  // Folders whose change time the restore itself moves: recorded again at the end.
  const moved = new Set<number>();
  let fixes = 0;
  // Every path's lstat first, split with a helper thread when there are many (parallel-lstat.ts).
  const found = lstatPaths(absolute);
  for (let i = 0; i < count; i++) {
    const parent = parents[i] as number;
    if (parent !== -1 && broken[parent] === 1) {
      broken[i] = 1;
      fixes++;
      continue;
    }
    const want = expected.get(paths[i] as string) as TreeEntry;
    const first = found[i];
    // Failed otherwise than "not there": read again now (a folder above may have been fixed).
    const stats = first === 'retry' ? lstatIfThere(absolute[i] as string) : first;
    if (stats === undefined || want.type !== entryType(stats)) {
      broken[i] = 1;
      fixes++;
      continue;
    }
    if (want.type === 'dir') {
      // At once: a folder made unreadable would hide its entries.
      if (want.mode !== (stats.mode & 0o7777)) {
        chmodSync(absolute[i] as string, want.mode);
        moved.add(i);
      }
      if (
        want.ino !== stats.ino ||
        want.ctimeMs !== stats.ctimeMs ||
        want.ctimeMs >= (seenAt[i] as number) - RACY_MS
      ) {
        listed.push(i);
        listedStats.push(stats);
      }
    } else if (!matchesStats(want, stats)) {
      broken[i] = 1;
      fixes++;
    }
  }

  for (let n = 0; n < listed.length; n++) {
    const i = listed[n] as number;
    const dir = i === -1 ? target : (absolute[i] as string);
    const prefix = i === -1 ? '' : `${paths[i]}/`;
    const listingAt = Date.now();
    let removed = false;
    for (const name of readdirSync(dir)) {
      const path = `${prefix}${name}`;
      if (expected.has(path) || skip?.(path)) continue;
      removeTree(`${dir}/${name}`);
      removed = true;
    }
    if (i === -1) continue;
    if (removed) {
      moved.add(i);
    } else if (!moved.has(i)) {
      record(plan, expected, i, listedStats[n - 1] as PathStats);
      seenAt[i] = listingAt;
    }
  }

  if (fixes === 0 && moved.size === 0) return expected;
  // In snapshot order: parents before children.
  for (let i = 0; i < count && fixes > 0; i++) {
    if (broken[i] === 0) continue;
    fixes--;
    const to = absolute[i] as string;
    const parent = parents[i] as number;
    // Inside a folder copied again, nothing is there yet.
    if ((parent === -1 || broken[parent] === 0) && lstatIfThere(to) !== undefined) removeTree(to);
    copyEntry(source(paths[i] as string), to, (expected.get(paths[i] as string) as TreeEntry).type);
    record(plan, expected, i, lstatSync(to));
    if (parent !== -1) moved.add(parent);
  }
  // Their entries are as the snapshot says now, but their change times are new.
  for (const i of moved) {
    record(plan, expected, i, lstatSync(absolute[i] as string));
    seenAt[i] = Date.now();
  }
  return expected;
}

/** How far back from when a folder was seen its change time counts as racy (a coarse clock tick). */
const RACY_MS = 50;

/** The order and links of a snapshot's paths, worked out once per snapshot (its paths never change). */
interface RestorePlan {
  target: string;
  paths: string[];
  absolute: string[];
  /** Index of each path's folder; -1 for entries of the root. */
  parents: Int32Array;
  /**
   * Folders: when (`Date.now()`) their entries were last known to be the
   * snapshot's; 0 when never (the first restore lists every folder).
   */
  seenAt: Float64Array;
}

const plans = new WeakMap<TreeSnapshot, RestorePlan>();

function planFor(target: string, snapshot: TreeSnapshot, skip?: SkipPath): RestorePlan {
  const known = plans.get(snapshot);
  if (known !== undefined && known.target === target && known.paths.length === snapshot.size) {
    return known;
  }
  const paths: string[] = [];
  const index = new Map<string, number>();
  for (const path of snapshot.keys()) {
    if (skip?.(path)) continue;
    index.set(path, paths.length);
    paths.push(path);
  }
  const parents = new Int32Array(paths.length);
  paths.forEach((path, i) => {
    const slash = path.lastIndexOf('/');
    parents[i] = slash === -1 ? -1 : (index.get(path.slice(0, slash)) ?? -1);
  });
  const plan: RestorePlan = {
    target,
    paths,
    absolute: paths.map((path) => `${target}/${path}`),
    parents,
    seenAt: new Float64Array(paths.length),
  };
  plans.set(snapshot, plan);
  return plan;
}

function record(plan: RestorePlan, snapshot: TreeSnapshot, i: number, stats: PathStats): void {
  snapshot.set(plan.paths[i] as string, treeEntry(stats));
}

function lstatIfThere(path: string): PathStats | undefined {
  try {
    return lstatSync(path, NO_THROW);
  } catch (error) {
    // A file where a folder of the path was.
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}

const NO_THROW = { throwIfNoEntry: false } as const;

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
