import path from 'node:path';
import type { Issue } from '../errors/input-issue.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import { snakeCaseSettings, toSnakeCase } from '../util/case-keys.js';
import { hasPlaceholder } from '../util/env-placeholder.js';
import { hasErrors, type LoadResult, sortIssues } from '../util/load-result.js';
import { readInputFile } from '../util/read-input-file.js';
import { isRecord, valueAt } from '../util/records.js';
import {
  findFirstFile,
  type SearchDirectoryOptions,
  searchDirectories,
} from '../util/search-directories.js';
import { describeZodIssues, type IssueScope } from '../yaml/describe-zod-issues.js';
import { parseYamlMapping } from '../yaml/parse-yaml-mapping.js';
import { unknownKeyWarnings } from '../yaml/unknown-keys.js';
import type { SourceLocator } from '../yaml/yaml-source.js';
import { interpolateEnv } from './interpolate-env.js';
import { dropUnsetOptionalReferences } from './optional-references.js';
import { targetIssuePosition, targetPositions } from './target-positions.js';
import {
  COMMON_TARGET_KEYS,
  TARGETS_FILE_KEYS,
  type TargetInput,
  targetSchema,
  targetsFileHint,
  targetsFileSchema,
} from './targets-schema.js';
import {
  isUpstreamTargetKey,
  readUpstreamTargetKeys,
  resolveUseTargets,
} from './upstream-target-keys.js';

const TARGETS_FILE_NAMES = [
  'targets.yaml',
  'targets.yml',
  path.join('.agentv', 'targets.yaml'),
  path.join('.agentv', 'targets.yml'),
];

const NUMERIC_FIELDS = [
  'workers',
  'max_retries',
  'requests_per_minute',
  'tokens_per_minute',
  'batch_size',
  'timeout_seconds',
  'max_output_bytes',
];

/** How a targets file is read. */
export interface LoadTargetsOptions {
  /** Variables for `${{ NAME }}`; default `process.env`. Merge `.env` in first (see `loadDotEnv`). */
  env?: Record<string, string | undefined>;
  /** Provider kind → the setting keys it accepts; other keys of its targets are warnings. */
  knownKeys?: Record<string, readonly string[]>;
  /**
   * Extra checks of each target whose common fields are valid (e.g.
   * `checkTarget`). Each issue is placed on the setting its `path` names
   * (relative to the target), else on the target; they never withhold the
   * loaded targets, so a caller can still resolve names against a file that has them.
   */
  inspectTarget?: (target: ResolvedTarget, all: readonly ResolvedTarget[]) => Issue[];
}

/**
 * Finds the targets file for an eval file in `startDir`: in `startDir`, then
 * each ancestor up to the repository root, then `cwd`, trying `targets.yaml`,
 * `targets.yml`, `.agentv/targets.yaml`, `.agentv/targets.yml` in each.
 */
export async function findTargetsFile(
  startDir: string,
  options: SearchDirectoryOptions = {},
): Promise<string | undefined> {
  return findFirstFile(await searchDirectories(startDir, options), TARGETS_FILE_NAMES);
}

/**
 * Loads a targets file (README, "Targets"): camelCase keys become snake_case,
 * `${{ NAME }}` placeholders are filled from `env` (unset names go to
 * `missingVariables`, not to issues; a setting AgentV reads as an optional
 * reference, `OPTIONAL_REFERENCE_SETTINGS`, is left out), and common fields are checked and
 * lifted. Messages never quote setting values, which may be secrets.
 */
export async function loadTargetsFile(
  filePath: string,
  options: LoadTargetsOptions = {},
): Promise<LoadResult<ResolvedTarget[]>> {
  const read = await readInputFile(path.resolve(filePath), filePath, 'targets file');
  if (read.value === undefined) return { issues: read.issues };
  return parseTargetsText(read.value, filePath, options);
}

/**
 * `loadTargetsFile` on text already read: `filePath` names it in issues and
 * relative paths in its targets resolve against its folder.
 */
export async function parseTargetsText(
  text: string,
  filePath: string,
  options: LoadTargetsOptions = {},
): Promise<LoadResult<ResolvedTarget[]>> {
  const absolutePath = path.resolve(filePath);
  const parsed = await parseYamlMapping(text, filePath, 'targets file', {
    matchKey: matchTargetKey,
  });
  if (parsed.value === undefined) return { issues: parsed.issues };
  const { source, data } = parsed.value;
  const issues: Issue[] = [...parsed.issues];
  issues.push(
    ...unknownKeyWarnings(data, {
      file: filePath,
      source,
      path: [],
      known: TARGETS_FILE_KEYS,
      where: 'at the top level',
    }),
  );

  return resolveTargets(data, source, filePath, targetsBaseDir(absolutePath), options, issues);
}

/**
 * Loads the `targets:` list an eval file may declare inline (same schema and
 * checks as a targets file; its other keys are the eval file's and not looked
 * at). Relative paths of these targets (`cwd`) resolve against the eval
 * file's directory. No `targets:` key: no targets and no issues.
 */
export async function loadInlineTargets(
  evalFilePath: string,
  options: LoadTargetsOptions = {},
): Promise<LoadResult<ResolvedTarget[]>> {
  const absolutePath = path.resolve(evalFilePath);
  const read = await readInputFile(absolutePath, evalFilePath, 'eval file');
  if (read.value === undefined) return { issues: [] };
  const parsed = await parseYamlMapping(read.value, evalFilePath, 'eval file', {
    splitKey: 'evalcases',
    matchKey: matchTargetKey,
  });
  // Unreadable YAML is reported by the eval file's own loader.
  if (parsed.value === undefined || parsed.value.data.targets === undefined) {
    return { value: [], issues: [] };
  }
  const { source, data } = parsed.value;
  return resolveTargets(
    { targets: data.targets },
    source,
    evalFilePath,
    path.dirname(absolutePath),
    options,
    [],
  );
}

/** Checks and resolves the `targets:` list of `data` (a targets file, or an eval file's inline list). */
function resolveTargets(
  data: Record<string, unknown>,
  source: SourceLocator,
  filePath: string,
  baseDir: string,
  options: LoadTargetsOptions,
  issues: Issue[],
): LoadResult<ResolvedTarget[]> {
  const absolutePath = path.resolve(filePath);
  const env = options.env ?? process.env;
  const prepared = Array.isArray(data.targets)
    ? data.targets.map((raw, index) => prepareTarget(raw, index, env, filePath, source, issues))
    : undefined;
  for (const { index, issue } of resolveUseTargets(prepared ?? [])) {
    const name = valueAt(prepared![index]!.settings, ['name']);
    issues.push({
      ...issue,
      file: filePath,
      ...source.locateKey(['targets', index], 'use_target'),
      ...(typeof name === 'string' ? { target: name } : {}),
    });
  }
  const checked = {
    ...data,
    targets: prepared ? prepared.map((target) => target.checked) : data.targets,
  };
  const validated = targetsFileSchema.safeParse(checked);
  if (!validated.success) {
    issues.push(
      ...describeZodIssues(validated.error.issues, {
        file: filePath,
        source,
        data: checked,
        showValues: (issuePath) => issuePath[0] === '$schema',
        scope: (issuePath) => targetScope(checked, issuePath),
        hint: targetsFileHint,
      }),
    );
  }
  issues.push(...duplicateNameIssues(checked.targets, filePath, source));

  const targets: ResolvedTarget[] = [];
  // Targets with invalid common settings: not usable, but their provider can still check its own
  // settings, so one pass reports every problem.
  const inspectOnly: ResolvedTarget[] = [];
  (prepared ?? []).forEach((target, index) => {
    const result = parseWithoutInvalidKeys(target.checked);
    if (result === undefined) return;
    const known = options.knownKeys?.[result.data.provider];
    if (known !== undefined) {
      issues.push(
        ...unknownKeyWarnings(target.settings, {
          file: filePath,
          source,
          path: ['targets', index],
          known: [...new Set([...COMMON_TARGET_KEYS, ...known])],
          where: `for provider "${result.data.provider}"`,
          target: result.data.name,
          displayKey: (key) => target.writtenKeys.get(key) ?? key,
        }),
      );
    }
    const resolved = toResolvedTarget(
      result.data,
      target,
      absolutePath,
      baseDir,
      source.locate(['targets', index])?.line,
    );
    // From the settings as written: a value whose ${{ VAR }} is unset is left out of `resolved.settings`.
    resolved.positions = targetPositions(target.settings, ['targets', index], source);
    (result.complete ? targets : inspectOnly).push(resolved);
  });
  const usable = validated.success && !hasErrors(issues);
  if (options.inspectTarget) {
    for (const target of [...targets, ...inspectOnly]) {
      for (const issue of options.inspectTarget(target, targets)) {
        // Where `eval` points the same issue (plan-run): the setting, else its nearest written parent.
        issues.push({ ...issue, ...targetIssuePosition(target, issue.path), target: target.name });
      }
    }
  }
  if (!usable) return { issues: sortIssues(issues) };
  return { value: targets, issues: sortIssues(issues) };
}

/** A target's settings (snake_case, interpolated) and the copy its common fields are checked on. */
interface PreparedTarget {
  settings: Record<string, unknown>;
  /** `settings` with placeholder-filled numbers and booleans converted, unresolved ones left out. */
  checked: unknown;
  missing: string[];
  /** Values put in for `${{ VAR }}` placeholders. */
  substituted: string[];
  /** snake_case key → the key as written in the file. */
  writtenKeys: Map<string, string>;
}

function prepareTarget(
  raw: unknown,
  index: number,
  env: Record<string, string | undefined>,
  file: string,
  source: SourceLocator,
  issues: Issue[],
): PreparedTarget {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { settings: {}, checked: raw, missing: [], substituted: [], writtenKeys: new Map() };
  }
  const name =
    typeof (raw as { name?: unknown }).name === 'string'
      ? (raw as { name: string }).name
      : undefined;
  const snakeCased = snakeCaseSettings(raw as Record<string, unknown>);
  const upstream = readUpstreamTargetKeys(snakeCased.value);
  const converted = {
    value: upstream.settings,
    issues: [...snakeCased.issues, ...upstream.issues],
  };
  for (const { path: keyPath = [], ...conflict } of converted.issues) {
    const issue: Issue = {
      ...conflict,
      file,
      ...source.locateKey(['targets', index], String(keyPath[0])),
    };
    if (name !== undefined) issue.target = name;
    issues.push(issue);
  }
  const present = dropUnsetOptionalReferences(converted.value, converted.value.provider, env);
  const { value: settings, missing, substituted } = interpolateEnv(present, env);
  const checked: Record<string, unknown> = { ...settings };
  for (const key of [...NUMERIC_FIELDS, 'provider_batching']) {
    const written = converted.value[key];
    const value = settings[key];
    if (typeof written !== 'string' || typeof value !== 'string' || !hasPlaceholder(written))
      continue;
    if (hasPlaceholder(value)) delete checked[key];
    else if (key === 'provider_batching' && /^(true|false)$/i.test(value.trim()))
      checked[key] = value.trim().toLowerCase() === 'true';
    else if (NUMERIC_FIELDS.includes(key) && value.trim() !== '' && Number.isFinite(Number(value)))
      checked[key] = Number(value);
  }
  const writtenKeys = new Map<string, string>();
  for (const written of Object.keys(raw)) {
    const key = toSnakeCase(written);
    if (!writtenKeys.has(key) || written === key) writtenKeys.set(key, written);
  }
  return { settings, checked, missing, substituted, writtenKeys };
}

function toResolvedTarget(
  input: TargetInput,
  prepared: PreparedTarget,
  filePath: string,
  baseDir: string,
  line: number | undefined,
): ResolvedTarget {
  const target: ResolvedTarget = {
    name: input.name,
    provider: input.provider,
    settings: prepared.settings,
    filePath,
    baseDir,
  };
  if (input.workers !== undefined) target.workers = input.workers;
  if (input.max_retries !== undefined) target.maxRetries = input.max_retries;
  if (input.requests_per_minute !== undefined) {
    target.requestsPerMinute = input.requests_per_minute;
  }
  if (input.tokens_per_minute !== undefined) target.tokensPerMinute = input.tokens_per_minute;
  if (input.provider_batching !== undefined) target.providerBatching = input.provider_batching;
  if (input.batch_size !== undefined) target.batchSize = input.batch_size;
  if (input.timeout_seconds !== undefined) target.timeoutSeconds = input.timeout_seconds;
  if (input.max_output_bytes !== undefined) target.maxOutputBytes = input.max_output_bytes;
  if (input.judge_target !== undefined) target.judgeTarget = input.judge_target;
  if (input.trace !== undefined && !Array.isArray(input.trace)) {
    target.trace = { source: input.trace.source };
    if (input.trace.grace_ms !== undefined) target.trace.graceMs = input.trace.grace_ms;
    if (input.trace.port !== undefined) target.trace.port = input.trace.port;
  }
  if (prepared.missing.length > 0) target.missingVariables = prepared.missing;
  if (prepared.substituted.length > 0) target.secretValues = prepared.substituted;
  if (line !== undefined) target.line = line;
  return target;
}

/** The directory holding `.agentv` when the file is inside one, else the file's directory. */
function targetsBaseDir(filePath: string): string {
  let dir = path.dirname(filePath);
  for (;;) {
    if (path.basename(dir) === '.agentv') return path.dirname(dir);
    const parent = path.dirname(dir);
    if (parent === dir) return path.dirname(filePath);
    dir = parent;
  }
}

function duplicateNameIssues(targets: unknown, file: string, source: SourceLocator): Issue[] {
  if (!Array.isArray(targets)) return [];
  const firstIndex = new Map<string, number>();
  const issues: Issue[] = [];
  targets.forEach((target: unknown, index) => {
    const name = valueAt(target, ['name']);
    if (typeof name !== 'string' || name === '') return;
    const first = firstIndex.get(name);
    if (first === undefined) {
      firstIndex.set(name, index);
      return;
    }
    const lines = [first, index].map((position) => source.locate(['targets', position])?.line);
    issues.push({
      severity: 'error',
      file,
      ...source.locate(['targets', index, 'name']),
      target: name,
      message: `duplicate target name "${name}" on lines ${lines.join(' and ')}`,
      hint: 'target names must be unique within one targets: list; rename one of them',
    });
  });
  return issues;
}

function targetScope(data: unknown, issuePath: readonly PropertyKey[]): IssueScope {
  if (issuePath[0] === 'targets' && typeof issuePath[1] === 'number' && issuePath.length > 2) {
    const name = valueAt(data, ['targets', issuePath[1], 'name']);
    if (typeof name === 'string' && name !== '')
      return { target: name, shownPath: issuePath.slice(2) };
  }
  return { shownPath: issuePath };
}

/**
 * A target's common settings parsed by the schema; when some are invalid (already reported),
 * parsed without them so the rest can still be checked (`complete: false`). Undefined when even
 * its name or provider is unusable.
 */
function parseWithoutInvalidKeys(
  checked: unknown,
): { data: TargetInput; complete: boolean } | undefined {
  const result = targetSchema.safeParse(checked);
  if (result.success) return { data: result.data, complete: true };
  if (!isRecord(checked)) return undefined;
  const invalid = new Set(result.error.issues.map((issue) => issue.path[0]));
  if (invalid.has('name') || invalid.has('provider') || invalid.has(undefined)) return undefined;
  const rest = Object.fromEntries(Object.entries(checked).filter(([key]) => !invalid.has(key)));
  const retried = targetSchema.safeParse(rest);
  return retried.success ? { data: retried.data, complete: false } : undefined;
}

/** Whether a key written in a targets file is `segment`: in camelCase, or by AgentV 4.x's name. */
function matchTargetKey(written: string, segment: string): boolean {
  const key = toSnakeCase(written);
  return key === segment || isUpstreamTargetKey(key, segment);
}
