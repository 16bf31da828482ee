import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '@agentv/core/internal';
import { closestMatch } from '@agentv/core/provider-utils';
import type { GlobOptions } from 'tinyglobby';

/** Every glob holds one of these: a path without any is none, and tinyglobby stays unloaded. */
const GLOB_CHARACTERS = /[*?[\]{}()!]/;

/** tinyglobby's `isDynamicPattern`, loading tinyglobby only for a path that may be a glob. */
export async function isGlob(input: string): Promise<boolean> {
  return GLOB_CHARACTERS.test(input) && (await import('tinyglobby')).isDynamicPattern(input);
}

/**
 * tinyglobby's `glob`, loaded on first use: with picomatch and fdir it is ~80 KB of the CLI's
 * start-up, which a run of named files does not need.
 */
export async function globFiles(
  patterns: string | string[],
  options: GlobOptions,
): Promise<string[]> {
  const { glob } = await import('tinyglobby');
  return glob(patterns, options);
}

export interface ExpandPathsOptions {
  /** The files a directory stands for (absolute paths). */
  directory(absolute: string): Promise<string[]>;
  /** What the files are, for the error when an input matches nothing: `eval files`. */
  noun: string;
}

/**
 * Expands the command line's paths into absolute file paths, sorted and
 * without repeats: a file as given (the loader reports it when it is not the
 * right kind), a glob's matches, and for a directory what `directory` returns.
 * An input that matches nothing is a usage error.
 */
export async function expandPaths(
  inputs: readonly string[],
  cwd: string,
  options: ExpandPathsOptions,
): Promise<string[]> {
  const found = new Set<string>();
  for (const input of inputs) {
    const matches = await expand(input, cwd, options);
    if (matches.length === 0) {
      const glob = await isGlob(input);
      if (!glob && (await isFolder(path.resolve(cwd, input)))) {
        // It exists: no other name was meant.
        throw new UsageError(`no ${options.noun} in "${input}"`, {
          hint: `the folder and its subfolders hold none; give a file's path, or run \`agentv init\` to write a starter project`,
        });
      }
      const sibling = glob ? undefined : await closestSibling(input, cwd);
      const guess = sibling === undefined ? '' : `did you mean "${sibling}"? `;
      throw new UsageError(`no ${options.noun} match "${input}"`, {
        hint: `${guess}check the path; it is relative to ${cwd}`,
      });
    }
    for (const match of matches) found.add(path.normalize(match));
  }
  return [...found].sort();
}

/** `input` with its last part replaced by the closest name in its folder (`evals/a.yml` → `evals/a.yaml`). */
async function closestSibling(input: string, cwd: string): Promise<string | undefined> {
  const absolute = path.resolve(cwd, input);
  const names = await readdir(path.dirname(absolute)).catch(() => [] as string[]);
  const match = closestMatch(path.basename(absolute), names);
  if (match === undefined) return undefined;
  const folder = path.dirname(input.replace(/[\\/]+$/, ''));
  return folder === '.' && !input.startsWith('./') ? match : path.join(folder, match);
}

async function isFolder(absolute: string): Promise<boolean> {
  return (await stat(absolute).catch(() => undefined))?.isDirectory() === true;
}

async function expand(input: string, cwd: string, options: ExpandPathsOptions): Promise<string[]> {
  if (await isGlob(input)) {
    return globFiles(input, {
      cwd,
      absolute: true,
      onlyFiles: true,
      ignore: ['**/node_modules/**'],
    });
  }
  const absolute = path.resolve(cwd, input);
  const info = await stat(absolute).catch(() => undefined);
  if (!info) return [];
  return info.isDirectory() ? options.directory(absolute) : [absolute];
}
