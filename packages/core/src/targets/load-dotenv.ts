import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentvError } from '../errors/agentv-error.js';
import {
  findFirstFile,
  type SearchDirectoryOptions,
  searchDirectories,
} from '../util/search-directories.js';
import { parseDotEnv } from './parse-dotenv.js';

/** Where to look for `.env` and what it is merged into. */
export interface LoadDotEnvOptions extends SearchDirectoryOptions {
  /** The process environment; its variables win over `.env`. Default `process.env`. */
  processEnv?: Record<string, string | undefined>;
}

/** The merged environment, and the `.env` file it came from (if any). */
export interface DotEnvResult {
  env: Record<string, string | undefined>;
  file?: string;
}

/**
 * Finds the nearest `.env` from `startDir` up to the repository root, then
 * in `cwd`, and returns `processEnv` with the file's variables added
 * (variables already in `processEnv` win). Does not modify `processEnv`.
 * Throws an `AgentvError` only when the `.env` found cannot be read.
 */
export async function loadDotEnv(
  startDir: string,
  options: LoadDotEnvOptions = {},
): Promise<DotEnvResult> {
  const processEnv = options.processEnv ?? process.env;
  const file = await findFirstFile(await searchDirectories(startDir, options), ['.env']);
  if (file === undefined) return { env: { ...processEnv } };
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new AgentvError(`cannot read ${file} (${code})`, {
      hint: 'fix its permissions or remove it',
      cause: error,
    });
  }
  const env: Record<string, string | undefined> = { ...parseDotEnv(text) };
  for (const [key, value] of Object.entries(processEnv)) {
    if (value !== undefined) env[key] = value;
  }
  return { env, file: path.resolve(file) };
}
