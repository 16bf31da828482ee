import {
  closeSync,
  copyFileSync,
  mkdirSync,
  openSync,
  readlinkSync,
  readSync,
  symlinkSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { FileChange } from './file-changes.js';
import { type FileSide, fileDiff, MAX_DIFF_FILE_BYTES } from './file-diff.js';
import {
  type SkipPath,
  sameEntry,
  snapshotTree,
  type TreeEntry,
  type TreeSnapshot,
} from './tree-snapshot.js';

/** A folder's state when a case started, and where the content of each file then can be read. */
export interface PlainBaseline {
  snapshot: TreeSnapshot;
  /**
   * Files changed just before the baseline: a change in the same tick of the
   * file system's clock may leave their times as they were, so their content
   * is compared even when their stat data is unchanged.
   */
  racy: Set<string>;
  /** Absolute path of a copy of `path` as it was at the baseline. */
  source(path: string): string;
}

/**
 * The baseline of folder `root`. `pristine` is the snapshot `root` had when its
 * content was pristine: files still as they were then are read later from
 * `pristineSource(path)`, an untouched copy; files that differ already (a `before_each`
 * hook, or earlier cases in a shared workspace, changed them) are copied into
 * `stashDir` now. With `fresh` (nothing touched `root` since that snapshot),
 * `root` is not even walked.
 */
export function plainBaseline(
  root: string,
  pristine: TreeSnapshot,
  pristineSource: (path: string) => string,
  stashDir: string,
  options: { fresh: boolean; skip?: SkipPath },
): PlainBaseline {
  const racyAfter = Date.now() - RACY_MS;
  if (options.fresh) {
    return { snapshot: pristine, racy: racyPaths(pristine, racyAfter), source: pristineSource };
  }
  const snapshot = snapshotTree(root, options.skip);
  const stashed = new Set<string>();
  for (const [path, entry] of snapshot) {
    if (entry.type !== 'file' && entry.type !== 'link') continue;
    const was = pristine.get(path);
    if (was !== undefined && sameEntry(was, entry)) continue;
    const to = join(stashDir, path);
    mkdirSync(dirname(to), { recursive: true });
    if (entry.type === 'link') symlinkSync(readlinkSync(join(root, path)), to);
    // A file too large to diff is not copied: it is named in the diff only.
    else if (entry.size <= MAX_DIFF_FILE_BYTES) copyFileSync(join(root, path), to);
    stashed.add(path);
  }
  return {
    snapshot,
    racy: racyPaths(snapshot, racyAfter),
    source: (path) => (stashed.has(path) ? join(stashDir, path) : pristineSource(path)),
  };
}

/** How far back from the baseline a file's change counts as racy (file system clocks tick coarsely). */
const RACY_MS = 50;

function racyPaths(snapshot: TreeSnapshot, after: number): Set<string> {
  const racy = new Set<string>();
  for (const [path, entry] of snapshot) {
    if (isContent(entry) && (entry.mtimeMs >= after || entry.ctimeMs >= after)) racy.add(path);
  }
  return racy;
}

/** What changed in folder `root` since `baseline`: its files (sorted) and their diffs. */
export function plainChanges(
  root: string,
  baseline: PlainBaseline,
  skip?: SkipPath,
): { files: FileChange[]; diffs: string[] } {
  const now = snapshotTree(root, skip);
  const paths = new Set<string>();
  for (const [path, entry] of baseline.snapshot) {
    if (isContent(entry) && !skip?.(path)) paths.add(path);
  }
  for (const [path, entry] of now) if (isContent(entry)) paths.add(path);
  const files: FileChange[] = [];
  const diffs: string[] = [];
  for (const path of [...paths].sort()) {
    const was = contentEntry(baseline.snapshot.get(path));
    const is = contentEntry(now.get(path));
    if (was !== undefined && is !== undefined && sameEntry(was, is) && !baseline.racy.has(path)) {
      continue;
    }
    const result = fileDiff(path, side(baseline.source(path), was), side(join(root, path), is));
    if (result === undefined) continue;
    files.push(result.change);
    diffs.push(result.diff);
  }
  return { files, diffs };
}

function isContent(entry: TreeEntry): boolean {
  return entry.type === 'file' || entry.type === 'link';
}

function contentEntry(entry: TreeEntry | undefined): TreeEntry | undefined {
  return entry !== undefined && isContent(entry) ? entry : undefined;
}

function side(path: string, entry: TreeEntry | undefined): FileSide {
  if (entry === undefined) return {};
  if (entry.type === 'link') return { content: Buffer.from(readlinkSync(path)), gitMode: '120000' };
  const gitMode = entry.mode & 0o111 ? '100755' : '100644';
  if (entry.size > MAX_DIFF_FILE_BYTES) return { tooLarge: true, gitMode };
  try {
    const content = readAtMost(path, MAX_DIFF_FILE_BYTES + 1);
    if (content.length > MAX_DIFF_FILE_BYTES) return { tooLarge: true, gitMode };
    return { content, gitMode };
  } catch {
    return {};
  }
}

/** The first `limit` bytes of a file: one that grew since its stat is not read whole. */
function readAtMost(path: string, limit: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(limit);
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, limit - length, null);
      if (read === 0) break;
      length += read;
      if (length === limit) break;
    }
    return buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}
