import { access } from 'node:fs/promises';
import path from 'node:path';
import {
  type AgentvConfig,
  DEFAULT_GUIDELINE_PATTERNS,
  type EvalCase,
  type EvalFile,
  findConfigFile,
  findRepoRoot,
  findTargetsFile,
  type InputIssue,
  loadConfigFile,
  type LoadEvalFileOptions,
  type LoadResult,
  loadDotEnv,
  loadTargetsFile,
  type ProviderRegistry,
  type ResolvedTarget,
  UsageError,
} from '@agentv/core';
import { loadEvalFiles } from './load-eval-files.js';

export interface RunInputs {
  /** The valid cases of every file, also of files with errors: run them only when `issues` has no error. */
  cases: EvalCase[];
  targets: ResolvedTarget[];
  targetsFile?: string;
  /** False when the targets file has errors: its targets cannot be resolved until it is fixed. */
  targetsUsable: boolean;
  /** Every problem found in every file, errors and warnings. */
  issues: InputIssue[];
}

export interface LoadRunInputsOptions {
  cwd: string;
  /** `--targets`: an explicit targets file. */
  targetsPath?: string;
  registry: ProviderRegistry;
}

/**
 * Loads everything a run reads before it starts: `.env`, config, every eval
 * file and the targets file. Problems are collected, not thrown, so they can
 * all be reported at once.
 */
export async function loadRunInputs(
  evalPaths: readonly string[],
  options: LoadRunInputsOptions,
): Promise<RunInputs> {
  const { cwd } = options;
  const firstDir = path.dirname(evalPaths[0]!);
  const repoRoot = await findRepoRoot(firstDir);
  const env = await loadDotEnv(firstDir, { repoRoot, cwd, processEnv: process.env });
  // `.env` values reach agents and judges too, as with dotenv; the shell's own variables win.
  for (const [name, value] of Object.entries(env.env)) {
    if (process.env[name] === undefined && value !== undefined) process.env[name] = value;
  }

  const issues: InputIssue[] = [];
  const cases: EvalCase[] = [];
  const loaded = await loadEvalFilesWithConfig(evalPaths, {
    cwd,
    repoRootOf: async () => repoRoot,
    configs: createConfigLookup(cwd),
    issues,
  });
  for (const { value } of loaded) if (value) cases.push(...value.cases);

  const targetsFile = await chooseTargetsFile(evalPaths, options, repoRoot, issues);
  let targets: ResolvedTarget[] = [];
  let targetsUsable = true;
  if (targetsFile) {
    const loaded = await loadTargetsFile(targetsFile, {
      env: process.env,
      knownKeys: knownSettingsKeys(options.registry),
    });
    issues.push(...loaded.issues);
    targets = loaded.value ?? [];
    targetsUsable = loaded.value !== undefined;
  }
  return { cases, targets, targetsFile, targetsUsable, issues };
}

/** The settings keys of every registered provider kind, for the targets loader's unknown-key warnings. */
export function knownSettingsKeys(registry: ProviderRegistry): Record<string, readonly string[]> {
  return Object.fromEntries(
    registry.kinds().map((kind) => [kind, registry.get(kind, '').settingsKeys ?? []] as const),
  );
}

/** Finds the config file governing a directory and loads each config file once. */
export interface ConfigLookup {
  /** The nearest `.agentv/config.y*ml` for eval files in `dir`, if any. */
  find(dir: string, repoRoot: string | undefined): Promise<string | undefined>;
  /** Loads `file`; `first` is true only for the first call per file, so its issues are reported once. */
  load(file: string): Promise<{ result: LoadResult<AgentvConfig>; first: boolean }>;
}

export function createConfigLookup(cwd: string): ConfigLookup {
  const loaded = new Map<string, Promise<LoadResult<AgentvConfig>>>();
  return {
    find: (dir, repoRoot) => findConfigFile(dir, { repoRoot, cwd }),
    async load(file) {
      const cached = loaded.get(file);
      if (cached) return { result: await cached, first: false };
      const loading = loadConfigFile(file);
      loaded.set(file, loading);
      return { result: await loading, first: true };
    },
  };
}

/** What loading eval files needs besides their paths. */
export interface EvalFilesContext {
  cwd: string;
  /** The repository root for eval files in `dir`. */
  repoRootOf(dir: string): Promise<string | undefined>;
  configs: ConfigLookup;
  /** Receives every file's issues and, the first time one is used, each config file's. */
  issues: InputIssue[];
  /** Load large inputs on worker threads (faster, more memory); see `loadEvalFiles`. */
  parallel?: boolean;
}

/** An eval file as loaded for a run, and the config file that governed it. */
export interface LoadedEvalFile {
  /**
   * Undefined only when the file could not be read or parsed. When it has
   * errors this still holds its valid cases, so later checks (targets,
   * evaluators) report every problem at once; never run them then.
   */
  value?: EvalFile;
  configFile?: string;
}

/**
 * Loads eval files, in order, each with the guideline patterns of the config
 * file that governs its directory.
 */
export async function loadEvalFilesWithConfig(
  evalPaths: readonly string[],
  context: EvalFilesContext,
): Promise<LoadedEvalFile[]> {
  const { cwd, configs, issues } = context;
  const requests: { path: string; options: LoadEvalFileOptions }[] = [];
  const configFiles: (string | undefined)[] = [];
  for (const evalPath of evalPaths) {
    const dir = path.dirname(evalPath);
    const repoRoot = await context.repoRootOf(dir);
    let guidelinePatterns = [...DEFAULT_GUIDELINE_PATTERNS];
    const configFile = await configs.find(dir, repoRoot);
    if (configFile) {
      const { result, first } = await configs.load(configFile);
      if (first) issues.push(...result.issues);
      guidelinePatterns = result.value?.guidelinePatterns ?? guidelinePatterns;
    }
    configFiles.push(configFile);
    requests.push({
      path: evalPath,
      options: { cwd, repoRoot, guidelinePatterns, partial: true },
    });
  }
  const results = await loadEvalFiles(requests, { parallel: context.parallel === true });
  return results.map((result, index) => {
    issues.push(...result.issues);
    const loaded: LoadedEvalFile = {};
    if (result.value) loaded.value = result.value;
    const configFile = configFiles[index];
    if (configFile) loaded.configFile = configFile;
    return loaded;
  });
}

async function chooseTargetsFile(
  evalPaths: readonly string[],
  options: LoadRunInputsOptions,
  repoRoot: string | undefined,
  issues: InputIssue[],
): Promise<string | undefined> {
  if (options.targetsPath !== undefined) {
    const explicit = path.resolve(options.cwd, options.targetsPath);
    try {
      await access(explicit);
    } catch {
      throw new UsageError(`targets file ${options.targetsPath} does not exist`, {
        hint: 'check the --targets path; it is relative to the current directory',
      });
    }
    return explicit;
  }
  const found = new Map<string, string>();
  for (const evalPath of evalPaths) {
    const targetsFile = await findTargetsFile(path.dirname(evalPath), {
      repoRoot,
      cwd: options.cwd,
    });
    if (targetsFile && !found.has(targetsFile)) found.set(targetsFile, evalPath);
  }
  if (found.size > 1) {
    const files = [...found.keys()];
    issues.push({
      severity: 'error',
      file: files[0]!,
      message: `the eval files use different targets files: ${files.join(', ')}`,
      hint: 'run them separately, or pass --targets PATH to choose one',
    });
  }
  return found.keys().next().value;
}
