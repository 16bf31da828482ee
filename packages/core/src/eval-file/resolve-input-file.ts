import path from 'node:path';
import { matchesAnyGlob } from '../util/glob-match.js';
import { isFile } from '../util/search-directories.js';

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
}

/** A file block's path resolved, or every path that was tried. */
export interface ResolvedInputFile {
  path?: string;
  tried: string[];
}

/**
 * Resolves a file block's path: relative paths against each search directory
 * in order; absolute paths as written, then (the original format's
 * convention) relative to the repository root.
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
    let check = lookup.checked.get(candidate);
    if (check === undefined) {
      check = isFile(candidate);
      lookup.checked.set(candidate, check);
    }
    if (await check) return { path: candidate, tried };
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
