import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { StarterFile } from './starter-files.js';

/** How files that already exist are treated. */
export interface WriteStarterFilesOptions {
  /** Overwrite existing files without asking. */
  force?: boolean;
  /** Asks whether to overwrite an existing file (given relative to the project); absent means never. */
  confirmOverwrite?: (relativePath: string) => Promise<boolean>;
}

/**
 * What happened to a file: `unchanged` — it was already there with exactly
 * this content; `kept` — it was there with other content and left alone.
 */
export type WriteAction = 'created' | 'overwritten' | 'unchanged' | 'kept';

/** What happened to each file (path relative to the project), in the order given. */
export type WriteOutcome = { path: string; action: WriteAction }[];

/**
 * Writes `files` under `dir`, creating folders as needed. A file that exists
 * with other content is overwritten only with `force` or when
 * `confirmOverwrite` says yes; otherwise it is kept.
 */
export async function writeStarterFiles(
  dir: string,
  files: readonly StarterFile[],
  options: WriteStarterFilesOptions = {},
): Promise<WriteOutcome> {
  const outcome: WriteOutcome = [];
  for (const file of files) {
    const target = path.join(dir, ...file.path.split('/'));
    const existing = await readFile(target, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (existing === file.content) {
      outcome.push({ path: file.path, action: 'unchanged' });
      continue;
    }
    if (existing !== undefined) {
      const overwrite =
        options.force === true || (await options.confirmOverwrite?.(file.path)) === true;
      if (!overwrite) {
        outcome.push({ path: file.path, action: 'kept' });
        continue;
      }
    }
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, file.content);
    outcome.push({ path: file.path, action: existing === undefined ? 'created' : 'overwritten' });
  }
  return outcome;
}
