/** What the agent changed in its workspace, from the baseline taken before it ran. */
export interface FileChanges {
  /** Every changed path, relative to the workspace with `/` separators, sorted. */
  files: FileChange[];
  /** Lines added over all text files. */
  insertions: number;
  /** Lines removed over all text files. */
  deletions: number;
  /**
   * A unified diff of the text files (`a/` and `b/` prefixes, as `git diff`
   * prints); binary files appear as a `Binary files … differ` line.
   */
  diff: string;
}

/** One changed path. */
export interface FileChange {
  path: string;
  status: 'added' | 'modified' | 'deleted';
  /** True for a binary file: named, its content not diffed. */
  binary?: true;
  insertions: number;
  deletions: number;
}
