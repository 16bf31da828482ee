import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { EvaluationContext } from '@agentv/core';
import { type CaseIdentity, createCaseFileFolder, safeFileStem } from './case-file-names.js';

/** What an agent changed in a case's workspace (core's `FileChanges`). */
export type WorkspaceChanges = NonNullable<EvaluationContext['workspace']>['changes'];

/** One case's workspace changes to save, with where the case came from. */
export interface WorkspaceChangesRecord extends CaseIdentity {
  dataset: string;
  evalFile: string;
  target: string;
  /** Under `--repeat N`, 1-based. */
  repeat?: number;
  changes: WorkspaceChanges;
  /** Where the workspace was kept, when it was. */
  keptAt?: string;
}

/** The content of a `<case>.json` file of the workspaces folder. */
export interface WorkspaceChangesFile {
  eval_id: string;
  dataset: string;
  eval_file: string;
  target: string;
  repeat?: number;
  kept_at?: string;
  files_changed: number;
  insertions: number;
  deletions: number;
  files: { path: string; status: string; binary?: true; insertions: number; deletions: number }[];
  /** The `<case>.diff` file beside it (its name), absent when nothing text changed. */
  diff_file?: string;
}

export interface WorkspaceChangesWriter {
  /** Absolute path of the folder the files go to. */
  readonly directory: string;
  /** Writes one case's `.json` (and `.diff` when there is one); resolves to the `.json`'s path. */
  write(record: WorkspaceChangesRecord): Promise<string>;
}

/**
 * The folder a result file's workspace changes go to: beside it, named after it
 * (`eval_….jsonl` → `eval_….workspaces/`), so each run (and shard) has its own.
 */
export function workspaceChangesFolder(resultFile: string): string {
  const parsed = path.parse(path.resolve(resultFile));
  return path.join(parsed.dir, `${parsed.name}.workspaces`);
}

/**
 * Writes each case's workspace changes into `directory` (created on the first
 * write): `<case>.json` (the file list and counts) and `<case>.diff` (the
 * unified diff, when any text changed), named like trace dumps — the sanitised
 * case id, then the target with `namesTarget` and the repeat under `--repeat`:
 * `<case>[_<target>][_repeat-<r>].json`. A file of an earlier run with the same
 * name (`--resume`) is replaced.
 */
export function createWorkspaceChangesWriter(
  directory: string,
  options: { namesTarget?: boolean } = {},
): WorkspaceChangesWriter {
  const folder = createCaseFileFolder(directory);
  return {
    directory: folder.directory,
    async write(record) {
      const caseStem = folder.stemFor(record);
      const named = options.namesTarget ? `${caseStem}_${safeFileStem(record.target)}` : caseStem;
      const stem = record.repeat === undefined ? named : `${named}_repeat-${record.repeat}`;
      const { changes } = record;
      const file: WorkspaceChangesFile = {
        eval_id: record.evalId,
        dataset: record.dataset,
        eval_file: record.evalFile,
        target: record.target,
        ...(record.repeat === undefined ? {} : { repeat: record.repeat }),
        ...(record.keptAt === undefined ? {} : { kept_at: record.keptAt }),
        files_changed: changes.files.length,
        insertions: changes.insertions,
        deletions: changes.deletions,
        files: changes.files.map((change) => ({
          path: change.path,
          status: change.status,
          ...(change.binary ? { binary: true as const } : {}),
          insertions: change.insertions,
          deletions: change.deletions,
        })),
      };
      if (changes.diff !== '') {
        file.diff_file = `${stem}.diff`;
        await folder.writeText(file.diff_file, changes.diff);
      }
      return folder.writeJson(`${stem}.json`, file);
    },
  };
}

/**
 * Reads back the changes `createWorkspaceChangesWriter` saved in `jsonPath`
 * (and the `.diff` it names). Throws when a file cannot be read or is not one.
 */
export async function readWorkspaceChanges(jsonPath: string): Promise<WorkspaceChanges> {
  const file = JSON.parse(await readFile(jsonPath, 'utf8')) as Partial<WorkspaceChangesFile>;
  if (!Array.isArray(file.files)) {
    throw new Error(`${jsonPath} is not a saved workspace change list (it has no "files")`);
  }
  const diff =
    typeof file.diff_file === 'string'
      ? await readFile(path.join(path.dirname(jsonPath), path.basename(file.diff_file)), 'utf8')
      : '';
  return {
    files: file.files.map((change) => ({
      path: change.path,
      status: change.status as WorkspaceChanges['files'][number]['status'],
      ...(change.binary ? { binary: true as const } : {}),
      insertions: change.insertions,
      deletions: change.deletions,
    })),
    insertions: file.insertions ?? 0,
    deletions: file.deletions ?? 0,
    diff,
  };
}
