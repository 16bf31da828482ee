import { stat } from 'node:fs/promises';
import path from 'node:path';
import { ancestorsOf, findRepoRoot } from './find-repo-root.js';

/** Where to stop walking up, and the extra directory tried last. */
export interface SearchDirectoryOptions {
  /** Stop at this directory; default: the nearest ancestor holding `.git`, else the filesystem root. */
  repoRoot?: string;
  /** Tried after the walk; default `process.cwd()`. */
  cwd?: string;
}

/**
 * The directories input files are looked up in, in order: `startDir`, each
 * ancestor up to the repository root (the filesystem root when `startDir` is
 * outside it or there is none), then `cwd`. No directory appears twice.
 */
export async function searchDirectories(
  startDir: string,
  options: SearchDirectoryOptions = {},
): Promise<string[]> {
  const start = path.resolve(startDir);
  const repoRoot = options.repoRoot ? path.resolve(options.repoRoot) : await findRepoRoot(start);
  const dirs: string[] = [];
  for (const dir of ancestorsOf(start)) {
    dirs.push(dir);
    if (dir === repoRoot) break;
  }
  const cwd = path.resolve(options.cwd ?? process.cwd());
  if (!dirs.includes(cwd)) dirs.push(cwd);
  return dirs;
}

/** The first `dir/name` that is a regular file, trying every name in a directory before the next one. */
export async function findFirstFile(
  dirs: readonly string[],
  names: readonly string[],
): Promise<string | undefined> {
  for (const dir of dirs) {
    for (const name of names) {
      const candidate = path.join(dir, name);
      if (await isFile(candidate)) return candidate;
    }
  }
  return undefined;
}

/** True when `filePath` exists and is a regular file (symlinks followed). */
export async function isFile(filePath: string): Promise<boolean> {
  try {
    return (await stat(filePath)).isFile();
  } catch {
    return false;
  }
}
