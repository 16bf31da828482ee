import path from 'node:path';
import { matchesAnyGlob } from '../util/glob-match.js';
import { isFile } from '../util/search-directories.js';
import {
  checkFileRootOnce,
  type FileRootRefusal,
  type FileRoots,
  systemFolderRefusal,
} from './file-roots.js';

/** Where the file blocks of one eval file are looked up. */
export interface FileLookup {
  /** The eval file's directory, its ancestors up to the repository root, then the current directory. */
  searchDirs: readonly string[];
  /** The eval file's directory. */
  evalDir: string;
  repoRoot?: string;
  cwd: string;
  guidelinePatterns: readonly string[];
  /** Memoised file checks, shared by every block of the file. */
  checked: Map<string, Promise<boolean>>;
  /** Where files may be read from. */
  roots: FileRoots;
  /** Memoised root checks, shared by every block and grader file of the file. */
  rootChecks: Map<string, Promise<FileRootRefusal | undefined>>;
}

/**
 * A file block's path resolved, or every path that was tried; `refused` when
 * the file found is outside the roots (then `path` is unset).
 */
export interface ResolvedInputFile {
  path?: string;
  tried: string[];
  refused?: FileRootRefusal;
}

/**
 * Resolves a file block's path: relative paths against each search directory
 * in order; absolute paths as written, then (the original format's
 * convention) relative to the repository root. The first file found is the
 * one; when its real path is outside `lookup.roots` (or in /proc, /sys,
 * /dev) it is refused, never passed over for a later candidate.
 */
export async function resolveInputFile(
  value: string,
  lookup: FileLookup,
): Promise<ResolvedInputFile> {
  const candidates = path.isAbsolute(value)
    ? [path.normalize(value), ...(lookup.repoRoot ? [path.join(lookup.repoRoot, value)] : [])]
    : lookup.searchDirs.map((dir) => path.resolve(dir, value));
  const tried = [...new Set(candidates)];
  for (const candidate of tried) {
    const system = systemFolderRefusal(candidate);
    if (system !== undefined) return { tried, refused: system };
    let check = lookup.checked.get(candidate);
    if (check === undefined) {
      check = isFile(candidate);
      lookup.checked.set(candidate, check);
    }
    if (!(await check)) continue;
    const refused = await checkFileRootOnce(candidate, lookup.roots, lookup.rootChecks);
    return refused === undefined ? { path: candidate, tried } : { tried, refused };
  }
  return { tried };
}

/**
 * True when `filePath` matches a guideline pattern, relative to the
 * repository root (the current directory when there is none) or to the eval
 * file's directory.
 */
export function isGuidelineFile(filePath: string, lookup: FileLookup): boolean {
  const bases = [lookup.repoRoot ?? lookup.cwd, lookup.evalDir];
  return bases.some((base) => {
    const relative = path.relative(base, filePath).split(path.sep).join('/');
    return matchesAnyGlob(relative, lookup.guidelinePatterns);
  });
}
