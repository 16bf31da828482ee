import {
  chmodSync,
  constants,
  copyFileSync,
  lchownSync,
  linkSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  type Stats,
  symlinkSync,
  utimesSync,
} from 'node:fs';

/**
 * The most entries and bytes of a tree `copySmallTree` copies itself. Measured: an entry takes
 * about 0.15 ms here, starting `cp` from a process of AgentV's size 4–5 ms and a 64-entry copy
 * by `cp` 10 ms, so up to 32 entries this process is done before `cp` would have started.
 */
export const SMALL_TREE = { entries: 32, bytes: 1024 * 1024 } as const;

interface Planned {
  path: string;
  stats: Stats;
}

/**
 * Copies the contents of folder `source` into the existing empty folder
 * `destination` in this process, as `cp -a` does (as far as it goes without
 * extended attributes): files copy-on-write where the file system can,
 * folders, symbolic links as they are, hard links within the tree kept as
 * links, modes, owners (where permitted) and modification and access times.
 * Synchronous: for a tree this small, a few hundred system calls take less
 * time than starting `cp`.
 *
 * Returns false, having written nothing, when the tree is not one it copies:
 * more than `SMALL_TREE` allows, a special file (fifo, socket, device), or a
 * git repository (whose index trusts timestamps to the nanosecond, which
 * `utimes` cannot set). Throws when a copy fails midway; what it wrote is then
 * still in `destination`.
 */
export function copySmallTree(source: string, destination: string): boolean {
  const plan = planCopy(source);
  if (plan === undefined) return false;
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  const linked = new Map<number, string>();
  const folders: Planned[] = [];
  for (const { path, stats } of plan) {
    const from = `${source}/${path}`;
    const to = `${destination}/${path}`;
    if (stats.isDirectory()) {
      mkdirSync(to);
      folders.push({ path, stats });
      keepOwner(to, stats, uid, gid);
      continue;
    }
    if (stats.isSymbolicLink()) {
      symlinkSync(readlinkSync(from), to);
      keepOwner(to, stats, uid, gid);
      lutimesSync(to, stats.atimeMs / 1000, stats.mtimeMs / 1000);
      continue;
    }
    if (stats.nlink > 1) {
      const first = linked.get(stats.ino);
      if (first !== undefined) {
        linkSync(first, to);
        continue;
      }
      linked.set(stats.ino, to);
    }
    // With the source's mode (libuv sets it on the new file).
    copyFileSync(from, to, constants.COPYFILE_FICLONE);
    // Changing the owner clears the set-user-ID and set-group-ID bits: set again after.
    if (keepOwner(to, stats, uid, gid)) chmodSync(to, stats.mode & 0o7777);
    utimesSync(to, stats.atimeMs / 1000, stats.mtimeMs / 1000);
  }
  // Deepest first, after their content: adding an entry to a folder moves its times.
  for (let i = folders.length - 1; i >= 0; i--) {
    const { path, stats } = folders[i] as Planned;
    const to = `${destination}/${path}`;
    chmodSync(to, stats.mode & 0o7777);
    utimesSync(to, stats.atimeMs / 1000, stats.mtimeMs / 1000);
  }
  const root = lstatSync(source);
  keepOwner(destination, root, uid, gid);
  chmodSync(destination, root.mode & 0o7777);
  utimesSync(destination, root.atimeMs / 1000, root.mtimeMs / 1000);
  return true;
}

/** Every path under `source`, parents first; undefined when it is not a tree to copy here. */
function planCopy(source: string): Planned[] | undefined {
  const plan: Planned[] = [];
  let bytes = 0;
  for (let next = 0, folder: string | undefined = ''; folder !== undefined; ) {
    const prefix = folder === '' ? '' : `${folder}/`;
    for (const name of readdirSync(folder === '' ? source : `${source}/${folder}`)) {
      if (name === '.git' || plan.length === SMALL_TREE.entries) return undefined;
      const path = `${prefix}${name}`;
      const stats = lstatSync(`${source}/${path}`);
      if (!stats.isFile() && !stats.isDirectory() && !stats.isSymbolicLink()) return undefined;
      bytes += stats.isFile() ? stats.size : 0;
      if (bytes > SMALL_TREE.bytes) return undefined;
      plan.push({ path, stats });
    }
    // Folders in the order they were planned: each one's parent is made before it.
    folder = undefined;
    while (next < plan.length) {
      const candidate = plan[next++] as Planned;
      if (candidate.stats.isDirectory()) {
        folder = candidate.path;
        break;
      }
    }
  }
  return plan;
}

/** Gives `path` the owner of `stats` when it is not this process's; whether it changed it. */
function keepOwner(path: string, stats: Stats, uid?: number, gid?: number): boolean {
  if (stats.uid === uid && stats.gid === gid) return false;
  try {
    lchownSync(path, stats.uid, stats.gid);
    return true;
  } catch (error) {
    // As `cp -a` does: an owner only root may give is not kept, silently.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'EINVAL') throw error;
    return false;
  }
}
