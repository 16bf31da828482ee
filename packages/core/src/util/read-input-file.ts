import { readFile, stat } from 'node:fs/promises';
import type { Issue } from '../errors/input-issue.js';
import type { LoadResult } from './load-result.js';

/** Input files larger than this are refused before reading (50 MB). */
export const MAX_INPUT_FILE_BYTES = 50 * 1024 * 1024;

/**
 * Reads an input file (eval, targets or config) as UTF-8 text. Missing,
 * unreadable, oversized, binary (NUL bytes) and empty files become one error
 * issue each (`allowEmpty` lets an empty file through); `kind` names the
 * file in messages ("eval file").
 */
export async function readInputFile(
  filePath: string,
  displayPath: string,
  kind: string,
  options: { allowEmpty?: boolean } = {},
): Promise<LoadResult<string>> {
  const fail = (message: string, hint: string): LoadResult<string> => ({
    issues: [{ severity: 'error', file: displayPath, message, hint } satisfies Issue],
  });
  let size: number;
  try {
    const info = await stat(filePath);
    if (info.isDirectory()) {
      return fail(`${kind} is a directory, not a file`, `pass the path of a YAML file`);
    }
    size = info.size;
  } catch (error) {
    return errorCode(error) === 'ENOENT'
      ? fail(
          `${kind} not found`,
          'check the path; relative paths are resolved against the current directory',
        )
      : fail(
          `${kind} cannot be read (${errorCode(error) ?? 'unknown error'})`,
          'check the file permissions',
        );
  }
  if (size > MAX_INPUT_FILE_BYTES) {
    const megabytes = (size / 1024 / 1024).toFixed(1);
    return fail(
      `${kind} is too large (${megabytes} MB; the limit is 50 MB)`,
      'split it into several smaller files',
    );
  }
  let buffer: Buffer;
  try {
    buffer = await readFile(filePath);
  } catch (error) {
    return fail(
      `${kind} cannot be read (${errorCode(error) ?? 'unknown error'})`,
      'check the file permissions',
    );
  }
  if (buffer.includes(0)) {
    return fail(`${kind} is a binary file (it contains NUL bytes)`, 'pass a UTF-8 YAML text file');
  }
  const text = buffer.toString('utf8');
  if (!options.allowEmpty && text.trim() === '') {
    return fail(`${kind} is empty`, emptyHint(kind));
  }
  return { value: text, issues: [] };
}

/** The hint for a file with no content, shared with loaders that find only comments. */
export function emptyHint(kind: string): string {
  if (kind === 'eval file') return 'add an `evalcases:` list with at least one case';
  if (kind === 'targets file') return 'add a `targets:` list with at least one target';
  return 'add content or delete the file';
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error
    ? String((error as { code: unknown }).code)
    : undefined;
}
