import { statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '@agentv/core/internal';
import { expandPaths, globFiles } from '../expand-paths.js';
import { evalInputsIn } from '../input-files/detect-file-kind.js';

const EVAL_FILE_GLOB = '**/*.{yaml,yml}';
/** Files in a directory that are configuration, not eval cases. */
const NOT_EVAL_FILES = ['**/.agentv/**', '**/node_modules/**', '**/targets.{yaml,yml}', '**/.*/**'];

/** Where eval files are looked for when the command line names none (`agentv init` writes them there). */
export const DEFAULT_EVAL_FOLDER = 'evals';

/**
 * Expands the command line's paths and globs into absolute eval file paths,
 * sorted and without repeats. A directory means every YAML file under it
 * except targets and `.agentv/` files and other tools' YAML files (`evalInputsIn`, which
 * `onSkipped` is told of, as `agentv validate` names them); no paths at all means the `evals/`
 * folder of `cwd`. Something that matches nothing is a usage error.
 */
export async function resolveEvalPaths(
  inputs: readonly string[],
  cwd: string,
  onSkipped?: (files: string[]) => void,
): Promise<string[]> {
  if (inputs.length === 0) {
    if (!statSync(path.join(cwd, DEFAULT_EVAL_FOLDER), { throwIfNoEntry: false })?.isDirectory()) {
      throw new UsageError(
        `no eval files given, and ${cwd} has no ${DEFAULT_EVAL_FOLDER}/ folder`,
        {
          hint: 'pass eval files, directories or globs, e.g. agentv eval evals/*.yaml; agentv init writes an example',
        },
      );
    }
    return resolveEvalPaths([DEFAULT_EVAL_FOLDER], cwd, onSkipped);
  }
  const skipped: string[] = [];
  const files = await expandPaths(inputs, cwd, {
    noun: 'eval files',
    directory: async (absolute) =>
      evalInputsIn(
        absolute,
        await globFiles(EVAL_FILE_GLOB, { cwd: absolute, absolute: true, ignore: NOT_EVAL_FILES }),
        cwd,
        skipped,
      ),
  });
  const named = new Set(files);
  const left = [...new Set(skipped)].filter((file) => !named.has(file)).sort();
  if (left.length > 0) onSkipped?.(left);
  return files;
}
