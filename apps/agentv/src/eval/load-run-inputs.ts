import { access } from 'node:fs/promises';
import path from 'node:path';
import {
  DEFAULT_GUIDELINE_PATTERNS,
  type EvalCase,
  findConfigFile,
  findRepoRoot,
  findTargetsFile,
  type InputIssue,
  loadConfigFile,
  loadDotEnv,
  loadEvalFile,
  loadTargetsFile,
  type ProviderRegistry,
  type ResolvedTarget,
  UsageError,
} from '@agentv/core';

export interface RunInputs {
  cases: EvalCase[];
  targets: ResolvedTarget[];
  targetsFile?: string;
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
  const patternsByConfig = new Map<string, string[]>();
  for (const evalPath of evalPaths) {
    const dir = path.dirname(evalPath);
    const guidelinePatterns = await guidelinePatternsFor(
      dir,
      repoRoot,
      cwd,
      patternsByConfig,
      issues,
    );
    const loaded = await loadEvalFile(evalPath, { cwd, repoRoot, guidelinePatterns });
    issues.push(...loaded.issues);
    if (loaded.value) cases.push(...loaded.value.cases);
  }

  const targetsFile = await chooseTargetsFile(evalPaths, options, repoRoot, issues);
  let targets: ResolvedTarget[] = [];
  if (targetsFile) {
    const knownKeys = Object.fromEntries(
      options.registry
        .kinds()
        .map((kind) => [kind, options.registry.get(kind, '').settingsKeys ?? []] as const),
    );
    const loaded = await loadTargetsFile(targetsFile, { env: process.env, knownKeys });
    issues.push(...loaded.issues);
    targets = loaded.value ?? [];
  }
  return { cases, targets, targetsFile, issues };
}

async function guidelinePatternsFor(
  dir: string,
  repoRoot: string | undefined,
  cwd: string,
  cache: Map<string, string[]>,
  issues: InputIssue[],
): Promise<string[]> {
  const configFile = await findConfigFile(dir, { repoRoot, cwd });
  if (!configFile) return [...DEFAULT_GUIDELINE_PATTERNS];
  const cached = cache.get(configFile);
  if (cached) return cached;
  const loaded = await loadConfigFile(configFile);
  issues.push(...loaded.issues);
  const patterns = loaded.value?.guidelinePatterns ?? [...DEFAULT_GUIDELINE_PATTERNS];
  cache.set(configFile, patterns);
  return patterns;
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
