import { stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '@agentv/core';
import { glob, isDynamicPattern } from 'tinyglobby';

const EVAL_FILE_GLOB = '**/*.{yaml,yml}';
/** Files in a directory that are configuration, not eval cases. */
const NOT_EVAL_FILES = ['**/.agentv/**', '**/node_modules/**', '**/targets.{yaml,yml}', '**/.*/**'];

/**
 * Expands the command line's paths and globs into absolute eval file paths,
 * sorted and without repeats. A directory means every YAML file under it
 * except targets and `.agentv/` files. Something that matches nothing is a usage error.
 */
export async function resolveEvalPaths(inputs: readonly string[], cwd: string): Promise<string[]> {
  if (inputs.length === 0) {
    throw new UsageError('no eval files given', {
      hint: 'pass eval files, directories or globs, e.g. agentv eval evals/*.yaml',
    });
  }
  const found = new Set<string>();
  for (const input of inputs) {
    const matches = await expand(input, cwd);
    if (matches.length === 0) {
      throw new UsageError(`no eval files match "${input}"`, {
        hint: `check the path; it is relative to ${cwd}`,
      });
    }
    for (const match of matches) found.add(match);
  }
  return [...found].sort();
}

async function expand(input: string, cwd: string): Promise<string[]> {
  if (isDynamicPattern(input)) {
    return glob(input, { cwd, absolute: true, onlyFiles: true, ignore: ['**/node_modules/**'] });
  }
  const absolute = path.resolve(cwd, input);
  const info = await stat(absolute).catch(() => undefined);
  if (!info) return [];
  if (info.isDirectory()) {
    return glob(EVAL_FILE_GLOB, { cwd: absolute, absolute: true, ignore: NOT_EVAL_FILES });
  }
  // An explicitly named file is taken as is; the loader reports it when it is not an eval file.
  return [absolute];
}
