import { UsageError } from '@agentv/core';
import { glob } from 'tinyglobby';
import { expandPaths } from '../expand-paths.js';

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
  return expandPaths(inputs, cwd, {
    noun: 'eval files',
    directory: (absolute) =>
      glob(EVAL_FILE_GLOB, { cwd: absolute, absolute: true, ignore: NOT_EVAL_FILES }),
  });
}
