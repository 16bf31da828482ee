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
    return { value: { guidelinePatterns: [...DEFAULT_GUIDELINE_PATTERNS] }, issues: [] };
  }
  const parsed = parseYamlMapping(read.value, filePath, 'config file');
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
  return { value: { guidelinePatterns: patterns }, issues: sortIssues(issues) };
}

function isCommentOnly(text: string): boolean {
  return text.split(/\r?\n/).every((line) => line.trim() === '' || line.trim().startsWith('#'));
}

function configHint(issuePath: readonly PropertyKey[], kind: ProblemKind): string | undefined {
  if (issuePath[0] === '$schema') return 'use `$schema: agentv-config-v2` or remove the line';
  if (issuePath[0] === 'guideline_patterns') {
    return kind === 'range'
      ? 'remove empty patterns from the list'
      : 'write a list of globs, e.g. `guideline_patterns: ["**/*.instructions.md"]`';
  }
  return undefined;
}
