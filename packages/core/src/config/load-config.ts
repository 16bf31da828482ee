import { stat } from 'node:fs/promises';
import path from 'node:path';
import { hasErrors, type LoadResult, sortIssues } from '../util/load-result.js';
import { readInputFile } from '../util/read-input-file.js';
import {
  findFirstFile,
  type SearchDirectoryOptions,
  searchDirectories,
} from '../util/search-directories.js';
import { describeZodIssues, type ProblemKind } from '../yaml/describe-zod-issues.js';
import { parseYamlMapping } from '../yaml/parse-yaml-mapping.js';
import { unknownKeyWarnings } from '../yaml/unknown-keys.js';
import {
  type AgentvConfig,
  CONFIG_FILE_KEYS,
  configFileSchema,
  DEFAULT_GUIDELINE_PATTERNS,
} from './config-schema.js';

const CONFIG_FILE_NAMES = [path.join('.agentv', 'config.yaml'), path.join('.agentv', 'config.yml')];

/**
 * Finds `.agentv/config.yaml` (or `.yml`) in `startDir`, then each ancestor up
 * to the repository root, then `cwd`. Undefined when there is none.
 */
export async function findConfigFile(
  startDir: string,
  options: SearchDirectoryOptions = {},
): Promise<string | undefined> {
  return findFirstFile(await searchDirectories(startDir, options), CONFIG_FILE_NAMES);
}

/**
 * Loads `.agentv/config.yaml`. A file with only comments gives the defaults;
 * unknown keys are warnings. Never throws for a user mistake.
 */
export async function loadConfigFile(filePath: string): Promise<LoadResult<AgentvConfig>> {
  const read = await readInputFile(path.resolve(filePath), filePath, 'config file', {
    allowEmpty: true,
  });
  if (read.value === undefined) return { issues: read.issues };
  if (read.value.trim() === '' || isCommentOnly(read.value)) {
    return {
      value: { guidelinePatterns: [...DEFAULT_GUIDELINE_PATTERNS], allowedFileRoots: [] },
      issues: [],
    };
  }
  const parsed = await parseYamlMapping(read.value, filePath, 'config file');
  if (parsed.value === undefined) return { issues: parsed.issues };
  const { source, data } = parsed.value;
  const issues = [...parsed.issues];
  issues.push(
    ...unknownKeyWarnings(data, { file: filePath, source, path: [], known: CONFIG_FILE_KEYS }),
  );
  const result = configFileSchema.safeParse(data);
  if (!result.success) {
    issues.push(
      ...describeZodIssues(result.error.issues, {
        file: filePath,
        source,
        data,
        showValues: true,
        scope: (issuePath) => ({ shownPath: issuePath }),
        hint: configHint,
      }),
    );
  }
  if (!result.success || hasErrors(issues)) return { issues: sortIssues(issues) };
  const patterns = result.data.guideline_patterns ?? [...DEFAULT_GUIDELINE_PATTERNS];
  const base = projectFolderOf(path.resolve(filePath));
  const allowedFileRoots: string[] = [];
  for (const [index, root] of (result.data.allowed_file_roots ?? []).entries()) {
    const absolute = path.resolve(base, root);
    allowedFileRoots.push(absolute);
    if (!(await isDirectory(absolute))) {
      issues.push({
        severity: 'warning',
        file: filePath,
        ...source.locate(['allowed_file_roots', index]),
        message: `allowed_file_roots: ${root} is not a folder (resolved to ${absolute})`,
        hint: 'fix the path (relative to the folder holding .agentv/) or remove it',
      });
    }
  }
  return {
    value: { guidelinePatterns: patterns, allowedFileRoots },
    issues: sortIssues(issues),
  };
}

/** The folder `allowed_file_roots` are relative to: the one holding `.agentv/`, else the config file's. */
function projectFolderOf(configFile: string): string {
  const folder = path.dirname(configFile);
  return path.basename(folder) === '.agentv' ? path.dirname(folder) : folder;
}

async function isDirectory(folder: string): Promise<boolean> {
  return (await stat(folder).catch(() => undefined))?.isDirectory() === true;
}

function isCommentOnly(text: string): boolean {
  return text.split(/\r?\n/).every((line) => line.trim() === '' || line.trim().startsWith('#'));
}

function configHint(issuePath: readonly PropertyKey[], kind: ProblemKind): string | undefined {
  if (issuePath[0] === '$schema') return 'use `$schema: agentv-config-v2` or remove the line';
  if (issuePath[0] === 'allowed_file_roots') {
    return kind === 'range'
      ? 'remove empty entries from the list'
      : 'write a list of folders, e.g. `allowed_file_roots: [../shared-fixtures, /data/evals]`';
  }
  if (issuePath[0] === 'guideline_patterns') {
    return kind === 'range'
      ? 'remove empty patterns from the list'
      : 'write a list of globs, e.g. `guideline_patterns: ["**/*.instructions.md"]`';
  }
  return undefined;
}
