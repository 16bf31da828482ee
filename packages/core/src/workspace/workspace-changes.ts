import { join } from 'node:path';
import type { FileChange, FileChanges } from './file-changes.js';
import { type GitBaseline, gitBaseline, gitChanges } from './git-changes.js';
import { type PlainBaseline, plainBaseline, plainChanges } from './plain-changes.js';
import type { SkipPath, TreeSnapshot } from './tree-snapshot.js';

/** The diff of one case is cut after this many bytes (its file list and counts stay whole). */
export const MAX_DIFF_BYTES = 1024 * 1024;

/** What a workspace holds, as far as measuring changes goes. */
export interface ChangeLayout {
  /** Folders (relative, `''` for the workspace itself) that are git repositories. */
  repoRoots: readonly string[];
}

/** Where a copy's files were pristine, and the copy's snapshot then. */
export interface PristineSource {
  snapshot: TreeSnapshot;
  source(path: string): string;
}

export interface WorkspaceBaseline {
  plain?: PlainBaseline;
  repos: Map<string, GitBaseline>;
}

export interface BaselineOptions {
  /** Nothing changed the workspace since it matched `pristine`. */
  fresh: boolean;
  /** A scratch folder of the lease's, removed with it. */
  scratch: string;
  env: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal;
}

/**
 * Records a workspace's state before the agent runs: git repositories as tree
 * objects (see `gitBaseline`), everything else as a file snapshot (see
 * `plainBaseline`).
 */
export async function takeBaseline(
  workspace: string,
  layout: ChangeLayout,
  pristine: PristineSource,
  options: BaselineOptions,
): Promise<WorkspaceBaseline> {
  const skip = skipRepos(layout.repoRoots);
  const repos = new Map<string, GitBaseline>();
  await Promise.all(
    layout.repoRoots.map(async (root, index) => {
      repos.set(
        root,
        await gitBaseline(join(workspace, root), {
          dir: join(options.scratch, `git-${index}`),
          env: options.env,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        }),
      );
    }),
  );
  if (layout.repoRoots.includes('')) return { repos };
  const plain = plainBaseline(
    workspace,
    pristine.snapshot,
    pristine.source,
    join(options.scratch, 'stash'),
    { fresh: options.fresh, ...(skip === undefined ? {} : { skip }) },
  );
  return { plain, repos };
}

/** What changed in `workspace` since `baseline`. */
export async function measureChanges(
  workspace: string,
  layout: ChangeLayout,
  baseline: WorkspaceBaseline,
  options: Omit<BaselineOptions, 'fresh'>,
): Promise<FileChanges> {
  const skip = skipRepos(layout.repoRoots);
  const files: FileChange[] = [];
  const diffs: string[] = [];
  if (baseline.plain !== undefined) {
    const plain = plainChanges(workspace, baseline.plain, skip);
    files.push(...plain.files);
    diffs.push(...plain.diffs);
  }
  const repoParts = await Promise.all(
    layout.repoRoots.map((root, index) =>
      gitChanges(
        join(workspace, root),
        root === '' ? '' : `${root}/`,
        baseline.repos.get(root) as GitBaseline,
        { dir: join(options.scratch, `git-${index}`), env: options.env },
        MAX_DIFF_BYTES + 1,
      ),
    ),
  );
  for (const part of repoParts) {
    files.push(...part.files);
    diffs.push(part.diff);
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  let insertions = 0;
  let deletions = 0;
  for (const file of files) {
    insertions += file.insertions;
    deletions += file.deletions;
  }
  return { files, insertions, deletions, diff: cappedDiff(diffs) };
}

/** The diffs joined, cut at a line end before `MAX_DIFF_BYTES` with a note of what was left out. */
function cappedDiff(diffs: readonly string[]): string {
  const whole = diffs.join('');
  if (Buffer.byteLength(whole) <= MAX_DIFF_BYTES) return whole;
  let cut = Buffer.from(whole).subarray(0, MAX_DIFF_BYTES).toString('utf8');
  // A cut UTF-8 sequence decodes to U+FFFD; cut back to the last whole line.
  cut = cut.slice(0, cut.lastIndexOf('\n') + 1);
  return `${cut}… diff cut at ${MAX_DIFF_BYTES / 1024 / 1024} MB: the file list and line counts are complete\n`;
}

/** The walk that leaves repositories to git; undefined when there are none. */
export function skipRepos(repoRoots: readonly string[]): SkipPath | undefined {
  if (repoRoots.length === 0) return undefined;
  if (repoRoots.includes('')) return () => true;
  return (path) => repoRoots.some((root) => path === root || path.startsWith(`${root}/`));
}
