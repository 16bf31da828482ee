import type { FileChange } from './file-changes.js';
import { diffLines, splitLines, unifiedHunks } from './line-diff.js';

/** One side of a changed file: its content (absent when the file is not there) and mode. */
export interface FileSide {
  content?: Buffer;
  /** Git's mode: 100644, 100755 or 120000 (a symbolic link). */
  gitMode?: string;
  /** The file was too large to read: it is named, not diffed. */
  tooLarge?: true;
}

/** Files are diffed up to this size; larger ones are named in the diff. */
export const MAX_DIFF_FILE_BYTES = 1024 * 1024;

/**
 * One file's change with its part of a unified diff, as `git diff` prints it
 * (`a/` and `b/` prefixes, `new file mode`, `deleted file mode`, mode changes);
 * a binary file (a NUL byte among its first 8,000 bytes, git's test) is named in
 * a `Binary files … differ` line. Undefined when nothing changed.
 */
export function fileDiff(
  path: string,
  before: FileSide,
  after: FileSide,
): { change: FileChange; diff: string } | undefined {
  const status: FileChange['status'] =
    before.content === undefined && !before.tooLarge
      ? 'added'
      : after.content === undefined && !after.tooLarge
        ? 'deleted'
        : 'modified';
  const header = [`diff --git a/${path} b/${path}`];
  if (status === 'added') header.push(`new file mode ${after.gitMode}`);
  else if (status === 'deleted') header.push(`deleted file mode ${before.gitMode}`);
  else if (before.gitMode !== after.gitMode) {
    header.push(`old mode ${before.gitMode}`, `new mode ${after.gitMode}`);
  }
  const from = status === 'added' ? '/dev/null' : `a/${path}`;
  const to = status === 'deleted' ? '/dev/null' : `b/${path}`;
  if (before.tooLarge || after.tooLarge) {
    return {
      change: { path, status, insertions: 0, deletions: 0 },
      diff: `${header.join('\n')}\n(not diffed: larger than ${MAX_DIFF_FILE_BYTES / 1024 / 1024} MB)\n`,
    };
  }
  const oldContent = before.content ?? Buffer.alloc(0);
  const newContent = after.content ?? Buffer.alloc(0);
  if (isBinary(oldContent) || isBinary(newContent)) {
    if (status === 'modified' && oldContent.equals(newContent) && header.length === 1) return;
    return {
      change: { path, status, binary: true, insertions: 0, deletions: 0 },
      diff: `${header.join('\n')}\n${oldContent.equals(newContent) ? '' : `Binary files ${from} and ${to} differ\n`}`,
    };
  }
  const lines = diffLines(
    splitLines(oldContent.toString('utf8')),
    splitLines(newContent.toString('utf8')),
  );
  let insertions = 0;
  let deletions = 0;
  for (const line of lines) {
    if (line.op === '+') insertions++;
    else if (line.op === '-') deletions++;
  }
  if (status === 'modified' && insertions === 0 && deletions === 0 && header.length === 1) return;
  const hunks = unifiedHunks(lines);
  return {
    change: { path, status, insertions, deletions },
    diff: `${header.join('\n')}\n${hunks === '' ? '' : `--- ${from}\n+++ ${to}\n${hunks}`}`,
  };
}

function isBinary(content: Buffer): boolean {
  return content.subarray(0, 8000).includes(0);
}
