import path from 'node:path';
import type { Issue } from '../errors/input-issue.js';
import { UsageError } from '../errors/usage-error.js';
import type { EvalCase } from '../eval-file/eval-case.js';
import { knownSettingsKeys, loadProject } from '../project/load-project.js';
import { LIBRARY_OPTION_NAMES, type OptionNames } from '../project/option-names.js';
import type { ProviderRegistry } from '../provider/provider-registry.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import { loadDotEnv } from '../targets/load-dotenv.js';
import { findTargetsFile, loadTargetsFile, parseTargetsText } from '../targets/load-targets.js';
import { findRepoRoot } from '../util/find-repo-root.js';
import { isFile } from '../util/search-directories.js';
import { loadYamlPackage } from '../yaml/yaml-package.js';
import type { EvaluateOptions, TargetDefinition } from './evaluate-options.js';

/** What a run is planned from. */
export interface EvaluationInput {
  cases: EvalCase[];
  /** Undefined when the targets have errors (already in `issues`) and cannot be used. */
  targets: ResolvedTarget[] | undefined;
  /** The targets file, for messages; undefined without one. */
  targetsFile?: string;
  env: Record<string, string | undefined>;
  issues: Issue[];
  /** Eval file → the targets it declares inline (undefined when they have errors). */
  inlineTargets?: ReadonlyMap<string, readonly ResolvedTarget[] | undefined>;
}

/** Names targets given as `targetDefinitions` in messages. */
export const TARGET_DEFINITIONS_LABEL = 'targetDefinitions';

/**
 * Loads what `evaluate()` runs: eval files through `loadProject` (as `agentv
 * eval` does), or the given cases with the targets file found from the first
 * case's folder. `targetDefinitions` replace any targets file: none is looked
 * for, as with an explicit `targetsFile`.
 */
export async function loadEvaluationInput(
  options: EvaluateOptions,
  cwd: string,
): Promise<EvaluationInput> {
  const hasFiles = options.evalFiles !== undefined;
  if (hasFiles === (options.cases !== undefined)) {
    throw new UsageError('evaluate() needs either evalFiles or cases', {
      hint: 'pass evalFiles: ["evals/suite.yaml"] or cases: [...] (e.g. from loadEvalFile)',
    });
  }
  if (options.targetsFile !== undefined && options.targetDefinitions !== undefined) {
    throw new UsageError('evaluate() takes targetsFile or targetDefinitions, not both', {
      hint: 'keep one of them',
    });
  }
  if (options.evalFiles !== undefined) {
    const target =
      options.targets !== undefined && options.targets.length > 0
        ? options.targets
        : options.target;
    const evalFiles = options.evalFiles.map((file) => path.resolve(cwd, file));
    const project = await loadProject({
      cwd,
      providerRegistry: options.providers,
      evalFiles,
      ...(options.targetsFile === undefined ? {} : { targetsFile: options.targetsFile }),
      ...(options.targetDefinitions === undefined
        ? {}
        : { targetsText: await definitionsText(options.targetDefinitions, cwd) }),
      mode: 'run',
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(target === undefined ? {} : { targetOverride: target }),
      optionNames: optionNamesOf(options),
    });
    const input: EvaluationInput = {
      cases: project.cases,
      targets: [],
      env: project.env,
      issues: project.issues,
      inlineTargets: project.inlineTargets,
    };
    const targetsFile = project.evalFiles[0]?.targetsFile;
    if (targetsFile !== undefined) {
      input.targetsFile = targetsFile;
      input.targets = project.targets.get(targetsFile);
    }
    return input;
  }

  const cases = [...(options.cases ?? [])];
  const dir = cases[0] === undefined ? cwd : path.dirname(path.resolve(cwd, cases[0].filePath));
  const repoRoot = await findRepoRoot(dir);
  const { env } = await loadDotEnv(dir, {
    repoRoot,
    cwd,
    processEnv: options.env ?? process.env,
  });
  if (options.targetDefinitions !== undefined) {
    const loaded = await fromDefinitions(options.targetDefinitions, options.providers, cwd, env);
    return { cases, env, ...loaded, issues: loaded.issues };
  }
  const targetsFile =
    options.targetsFile !== undefined
      ? await explicitTargetsFile(options.targetsFile, cwd)
      : await findTargetsFile(dir, { repoRoot, cwd });
  if (targetsFile === undefined) return { cases, targets: [], env, issues: [] };
  const loaded = await loadTargetsFile(targetsFile, {
    env,
    knownKeys: knownSettingsKeys(options.providers),
  });
  return { cases, targets: loaded.value, targetsFile, env, issues: loaded.issues };
}

/** Targets given in code as targets-file text, named `<cwd>/targetDefinitions` in issues. */
async function definitionsText(
  definitions: readonly TargetDefinition[],
  cwd: string,
): Promise<{ path: string; text: string }> {
  const { stringify } = await loadYamlPackage();
  return {
    path: path.join(cwd, TARGET_DEFINITIONS_LABEL),
    text: stringify({ targets: definitions }),
  };
}

/** Targets given in code, checked like a targets file's; relative paths resolve against `cwd`. */
async function fromDefinitions(
  definitions: readonly TargetDefinition[],
  providers: ProviderRegistry,
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<{ targets: ResolvedTarget[] | undefined; targetsFile: string; issues: Issue[] }> {
  const { path: label, text } = await definitionsText(definitions, cwd);
  const loaded = await parseTargetsText(text, label, {
    env,
    knownKeys: knownSettingsKeys(providers),
  });
  return { targets: loaded.value, targetsFile: label, issues: loaded.issues };
}

async function explicitTargetsFile(given: string, cwd: string): Promise<string> {
  const file = path.resolve(cwd, given);
  if (!(await isFile(file))) {
    throw new UsageError(`targets file ${given} does not exist`, {
      hint: 'check the targetsFile path; it is relative to cwd',
    });
  }
  return file;
}

/** How messages name `options`' target options: as given, else as `evaluate()` calls them. */
export function optionNamesOf(options: EvaluateOptions): OptionNames {
  if (options.optionNames !== undefined) return options.optionNames;
  const severalTargets = options.targets !== undefined && options.targets.length > 0;
  return { ...LIBRARY_OPTION_NAMES, target: severalTargets ? 'targets' : 'target' };
}
