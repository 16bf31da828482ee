import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { AgentvConfig } from '../config/config-schema.js';
import { DEFAULT_GUIDELINE_PATTERNS } from '../config/config-schema.js';
import { findConfigFile, loadConfigFile } from '../config/load-config.js';
import type { Issue } from '../errors/input-issue.js';
import { UsageError } from '../errors/usage-error.js';
import type { EvalCase, EvalFile } from '../eval-file/eval-case.js';
import { type LoadEvalFileOptions, loadEvalFile } from '../eval-file/load-eval-file.js';
import type { ProviderRegistry } from '../provider/provider-registry.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import { targetSettingsIssue } from '../provider/target-settings-issue.js';
import { loadDotEnv } from '../targets/load-dotenv.js';
import {
  findTargetsFile,
  type LoadTargetsOptions,
  loadTargetsFile,
  parseTargetsText,
} from '../targets/load-targets.js';
import { displayPath } from '../util/display-path.js';
import { findRepoRoot } from '../util/find-repo-root.js';
import { isAtOrInside } from '../util/is-at-or-inside.js';
import { hasErrors, type LoadResult, uniqueIssues } from '../util/load-result.js';
import { checkTarget, type TargetPolicy } from './check-target.js';
import { loadAllInlineTargets } from './inline-targets.js';
import { LIBRARY_OPTION_NAMES, type OptionNames, passOption } from './option-names.js';
import { targetNamesOf } from './target-names-of.js';

/** Loads eval files in order, e.g. on worker threads (the app's); default: one after another here. */
export type EvalFilesLoader = (
  requests: readonly { path: string; options: LoadEvalFileOptions }[],
) => Promise<LoadResult<EvalFile>[]>;

/** What to load, and for which command. */
export interface LoadProjectOptions {
  /** Resolves relative paths; the last place input files are looked up. */
  cwd: string;
  providerRegistry: ProviderRegistry;
  /** Eval files (absolute), in order. */
  evalFiles: readonly string[];
  /** Targets files to load and check besides those the eval files use (validate's arguments). */
  targetsFiles?: readonly string[];
  /** Config files to load and check besides those governing the eval files. */
  configFiles?: readonly string[];
  /** `--targets`: the targets file every eval file uses, relative to `cwd`; it must exist. */
  targetsFile?: string;
  /**
   * Targets given in code (`evaluate()`'s `targetDefinitions`) as the text of a
   * targets file: `path` (absolute) names it in issues and relative paths in it
   * resolve against its folder. Every eval file uses it; no targets file is
   * looked for, and `targetsFile` must not be given too.
   */
  targetsText?: { path: string; text: string };
  /** `--target`: every case uses this target (or each of these targets). */
  targetOverride?: string | readonly string[];
  /**
   * `run` (`agentv eval`): the eval files run together, so they must use one
   * targets file; the `.env` of the first eval file's directory fills every
   * `${{ VAR }}`; targets are checked when the run is planned (`planRun`), for
   * the cases selected.
   *
   * `validate`: each eval file uses the targets file found for it, each
   * targets file is filled from its own directory's `.env`, and targets are
   * checked here (`checkTarget`): every target of the `targetsFiles` given,
   * and of a targets file found for the eval files only those they use. An
   * unknown provider is an error when a loaded eval file uses the target, else
   * a warning; unset variables are warnings.
   */
  mode: 'run' | 'validate';
  loadEvalFiles?: EvalFilesLoader;
  /** The shell's variables, merged over `.env`; default `process.env` (never changed). */
  env?: Record<string, string | undefined>;
  /** How messages name `targetsFile` and `targetOverride`; default `LIBRARY_OPTION_NAMES`. */
  optionNames?: OptionNames;
}

/** An eval file as loaded, and the files that govern it. */
export interface ProjectEvalFile {
  path: string;
  /**
   * Undefined only when the file could not be read or parsed. When it has
   * errors this still holds its valid cases, so later checks (targets,
   * evaluators) report every problem at once; never run them then.
   */
  value?: EvalFile;
  configFile?: string;
  /** The targets file its cases resolve against; undefined when none was found. */
  targetsFile?: string;
}

/** Everything a command reads before it does anything. */
export interface LoadedProject {
  evalFiles: ProjectEvalFile[];
  /** The valid cases of every eval file, in order (see `ProjectEvalFile.value`). */
  cases: EvalCase[];
  /** Targets file → its targets; undefined when the file has errors and its targets cannot be used. */
  targets: Map<string, ResolvedTarget[] | undefined>;
  /**
   * Eval file → the targets it declares inline (`targets:`), seen only by its
   * own cases; undefined when they have errors. Files without `targets:` are absent.
   */
  inlineTargets: Map<string, ResolvedTarget[] | undefined>;
  /**
   * The environment agents and judge scripts start from: the shell's
   * variables merged over `.env` (the shell wins). `process.env` is never changed.
   */
  env: Record<string, string | undefined>;
  /** Every file loaded: those given first, in order, then those found for them. */
  files: string[];
  /** Every problem found in every file, errors and warnings, each once. */
  issues: Issue[];
}

/**
 * Loads a project the one way `agentv eval` and `agentv validate` share:
 * `.env`, config files, eval files (with their config's guideline patterns)
 * and targets files (with every provider's settings keys, for unknown-key
 * warnings). Problems are collected, not thrown, so all are reported at once;
 * only a missing `--targets` file throws `UsageError`.
 */
export async function loadProject(options: LoadProjectOptions): Promise<LoadedProject> {
  return new ProjectLoader(options).load();
}

/** The settings keys of every registered provider kind, for the targets loader's unknown-key warnings. */
export function knownSettingsKeys(registry: ProviderRegistry): Record<string, readonly string[]> {
  return Object.fromEntries(
    registry.kinds().map((kind) => [kind, registry.get(kind, '').settingsKeys ?? []] as const),
  );
}

class ProjectLoader {
  private readonly files = new Set<string>();
  private readonly issues: Issue[] = [];
  private readonly repoRoots = new Map<string, Promise<string | undefined>>();
  private readonly configs = new Map<string, Promise<LoadResult<AgentvConfig>>>();
  private readonly envs = new Map<string, Promise<Record<string, string | undefined>>>();

  constructor(private readonly options: LoadProjectOptions) {
    for (const file of [...(options.targetsFiles ?? []), ...(options.configFiles ?? [])]) {
      this.files.add(file);
    }
    for (const file of options.evalFiles) this.files.add(file);
  }

  async load(): Promise<LoadedProject> {
    const { options } = this;
    const explicit = options.targetsText?.path ?? (await this.explicitTargetsFile());
    if (explicit !== undefined && options.targetsText === undefined) this.files.add(explicit);
    const firstDir = path.dirname(options.evalFiles[0] ?? options.targetsFiles?.[0] ?? options.cwd);
    const env = await this.envOf(firstDir);
    for (const file of options.configFiles ?? []) this.add((await this.config(file)).issues);

    const evalFiles = await this.loadEvalFiles();
    // One eval file's cases are its list, not a copy of every case.
    const cases =
      evalFiles.length === 1
        ? (evalFiles[0]!.value?.cases ?? [])
        : evalFiles.flatMap((file) => file.value?.cases ?? []);
    if (options.mode === 'run') {
      const chosen = explicit ?? (await this.sharedTargetsFile(evalFiles));
      for (const file of evalFiles) if (chosen) file.targetsFile = chosen;
    } else {
      for (const file of evalFiles) {
        file.targetsFile = explicit ?? (await this.targetsFileFor(path.dirname(file.path)));
      }
    }

    const targetsFiles = [...(options.targetsFiles ?? [])];
    for (const file of evalFiles) {
      if (file.targetsFile && !targetsFiles.includes(file.targetsFile)) {
        targetsFiles.push(file.targetsFile);
      }
    }
    const targets = new Map<string, ResolvedTarget[] | undefined>();
    // Only validate reports which eval files use a target: a run does not walk its cases for it.
    const usedBy =
      options.mode === 'validate' ? this.targetUsers(evalFiles) : new Map<string, Set<string>>();
    for (const file of targetsFiles) {
      // Targets given as text are no file on disk (nothing to watch or name as loaded).
      if (file !== options.targetsText?.path) this.files.add(file);
      // A targets file given to validate is checked whole; one found for the eval files given
      // only for the targets they use, as `eval` would (a broken target they do not use must
      // not fail them).
      const whole = options.targetsFiles?.includes(file) === true;
      const loadOptions: LoadTargetsOptions = {
        env: options.mode === 'run' ? env : await this.envOf(path.dirname(file)),
        knownKeys: knownSettingsKeys(options.providerRegistry),
        ...(options.mode === 'validate'
          ? {
              inspectTarget: (target: ResolvedTarget, all: readonly ResolvedTarget[]) => {
                const users = usersOf(usedBy, file, target, all);
                if (users === undefined && !whole) return [];
                const issues = checkTarget(
                  target,
                  options.providerRegistry,
                  this.validatePolicy(users),
                );
                return users === undefined && !hasErrors(issues)
                  ? [...issues, ...this.unusedTargetUse(target, file, evalFiles)]
                  : issues;
              },
            }
          : {}),
      };
      const loaded =
        file === options.targetsText?.path
          ? await parseTargetsText(options.targetsText.text, file, loadOptions)
          : await loadTargetsFile(file, loadOptions);
      this.add(loaded.issues);
      targets.set(file, loaded.value);
    }
    const inlineTargets = await loadAllInlineTargets(evalFiles, targets, {
      cwd: options.cwd,
      mode: options.mode,
      providerRegistry: options.providerRegistry,
      knownKeys: knownSettingsKeys(options.providerRegistry),
      targetOverride: options.targetOverride,
      env: (dir) => (options.mode === 'run' ? Promise.resolve(env) : this.envOf(dir)),
      validatePolicy: (users) => this.validatePolicy(users),
    });
    this.add(inlineTargets.issues);
    return {
      evalFiles,
      cases,
      targets,
      inlineTargets: inlineTargets.value,
      env,
      files: [...this.files],
      issues: uniqueIssues(this.issues),
    };
  }

  /**
   * validate without `--target`: what `checkUse` finds (a program not on PATH, an agent CLI
   * not installed) for a target no eval file uses, so every target of a targets file is
   * checked, not only those the eval files name. Its relative paths resolve as in a run that
   * picks it with `--target`: against the folder of each checked eval file of this targets
   * file (a `cwd` default), the first folder with problems reported; with none, against the
   * target's own folder. These are warnings: a targets file shared by machines names agents
   * not every machine has, and such a target fails only a run that uses it (an error there,
   * and in validate for the eval files or `--target` that use it).
   */
  private unusedTargetUse(
    target: ResolvedTarget,
    targetsFile: string,
    evalFiles: readonly ProjectEvalFile[],
  ): Issue[] {
    const override = this.options.targetOverride;
    if (override !== undefined && override.length > 0) return [];
    if (!this.options.providerRegistry.has(target.provider)) return [];
    const anchors = new Map<string, string>();
    for (const file of evalFiles) {
      if (file.targetsFile === targetsFile && !anchors.has(path.dirname(file.path))) {
        anchors.set(path.dirname(file.path), file.path);
      }
    }
    if (anchors.size === 0) anchors.set(target.baseDir, path.join(target.baseDir, 'targets.yaml'));
    let problems: Issue[] = [];
    for (const anchor of anchors.values()) {
      problems = this.options.providerRegistry.checkUse(target, anchor, 'validate');
      if (problems.length > 0) break;
    }
    return problems.map((problem) => {
      const issue = targetSettingsIssue(problem, target);
      if (issue.severity !== 'error') return issue;
      return {
        ...issue,
        severity: 'warning',
        hint: `${issue.hint === undefined ? '' : `${issue.hint}; `}no eval file checked uses this target: a run that uses it stops here`,
      };
    });
  }

  private validatePolicy(users: Set<string> | undefined): TargetPolicy {
    if (users === undefined) return { unknownProvider: 'warning', missingVariables: 'warning' };
    const shown = [...users].map((file) => displayPath(this.options.cwd, file));
    return { unknownProvider: 'error', missingVariables: 'warning', usedBy: shown };
  }

  /** `targetsFile \0 target` → the eval files whose cases use that target. */
  private targetUsers(evalFiles: readonly ProjectEvalFile[]): Map<string, Set<string>> {
    const users = new Map<string, Set<string>>();
    for (const file of evalFiles) {
      if (!file.targetsFile || !file.value) continue;
      let last: EvalCase | undefined;
      const { cases } = file.value;
      // Indexed: it runs for every case, a for-of loop allocates an iterator result per step.
      for (let index = 0; index < cases.length; index++) {
        const evalCase = cases[index]!;
        // Cases mostly name their file's targets (shared lists): those were just counted.
        if (
          last !== undefined &&
          evalCase.target === last.target &&
          evalCase.targets === last.targets &&
          evalCase.judgeTarget === last.judgeTarget
        ) {
          continue;
        }
        last = evalCase;
        // The judge target an eval file names is used too (a target's own judge_target is
        // checked when the plan resolves it).
        const names = [
          ...targetNamesOf(evalCase, this.options.targetOverride),
          evalCase.judgeTarget,
        ];
        for (const name of names) {
          if (name === undefined) continue;
          const key = `${file.targetsFile}\0${name}`;
          const set = users.get(key) ?? new Set<string>();
          set.add(file.path);
          users.set(key, set);
        }
      }
    }
    return users;
  }

  private add(issues: readonly Issue[]): void {
    this.issues.push(...issues);
  }

  /** Loads eval files, in order, each with the guideline patterns of the config file governing its directory. */
  private async loadEvalFiles(): Promise<ProjectEvalFile[]> {
    const { cwd, evalFiles } = this.options;
    const requests: { path: string; options: LoadEvalFileOptions }[] = [];
    const loaded: ProjectEvalFile[] = [];
    for (const evalPath of evalFiles) {
      const dir = path.dirname(evalPath);
      const repoRoot = await this.repoRoot(dir);
      let guidelinePatterns = [...DEFAULT_GUIDELINE_PATTERNS];
      let allowedFileRoots: string[] = [];
      const configFile = await findConfigFile(dir, { repoRoot, cwd });
      const file: ProjectEvalFile = { path: evalPath };
      if (configFile) {
        this.files.add(configFile);
        const result = await this.config(configFile);
        this.add(result.issues);
        guidelinePatterns = result.value?.guidelinePatterns ?? guidelinePatterns;
        allowedFileRoots = result.value?.allowedFileRoots ?? allowedFileRoots;
        file.configFile = configFile;
      }
      loaded.push(file);
      requests.push({
        path: evalPath,
        options: { cwd, repoRoot, guidelinePatterns, allowedFileRoots, partial: true },
      });
    }
    const load =
      this.options.loadEvalFiles ??
      ((all) => Promise.all(all.map((request) => loadEvalFile(request.path, request.options))));
    const results = await load(requests);
    const sources = results.flatMap((result) => result.value?.workspaceSources ?? []);
    const kept: ProjectEvalFile[] = [];
    results.forEach((result, index) => {
      const file = loaded[index]!;
      // A YAML file of a workspace's template or repository, or a workspace file, found by a
      // directory walk: the agent's material, not an eval file.
      if (
        result.value?.noCases &&
        sources.some((source) => isAtOrInside(path.resolve(file.path), source))
      ) {
        this.files.delete(file.path);
        return;
      }
      this.add(result.issues);
      if (result.value) file.value = result.value;
      if (result.value?.casesFile !== undefined) this.files.add(result.value.casesFile);
      kept.push(file);
    });
    return kept;
  }

  /** Loads a config file once. */
  private config(file: string): Promise<LoadResult<AgentvConfig>> {
    let loading = this.configs.get(file);
    if (loading === undefined) {
      loading = loadConfigFile(file);
      this.configs.set(file, loading);
    }
    return loading;
  }

  private repoRoot(dir: string): Promise<string | undefined> {
    let root = this.repoRoots.get(dir);
    if (root === undefined) {
      root = findRepoRoot(dir);
      this.repoRoots.set(dir, root);
    }
    return root;
  }

  /** `process.env` over the nearest `.env` from `dir`, without changing `process.env`. */
  private envOf(dir: string): Promise<Record<string, string | undefined>> {
    let env = this.envs.get(dir);
    if (env === undefined) {
      env = this.repoRoot(dir).then(async (repoRoot) => {
        const loaded = await loadDotEnv(dir, {
          repoRoot,
          cwd: this.options.cwd,
          processEnv: this.options.env ?? process.env,
        });
        return loaded.env;
      });
      this.envs.set(dir, env);
    }
    return env;
  }

  private async targetsFileFor(dir: string): Promise<string | undefined> {
    return findTargetsFile(dir, { repoRoot: await this.repoRoot(dir), cwd: this.options.cwd });
  }

  private async explicitTargetsFile(): Promise<string | undefined> {
    const given = this.options.targetsFile;
    if (given === undefined) return undefined;
    const explicit = path.resolve(this.options.cwd, given);
    if (!(await stat(explicit).catch(() => undefined))?.isFile()) {
      throw new UsageError(`targets file ${given} does not exist`, {
        hint: `check the ${(this.options.optionNames ?? LIBRARY_OPTION_NAMES).targetsFile} path; it is relative to the current directory`,
      });
    }
    return explicit;
  }

  /** The one targets file eval files that run together use; an error when they find different ones. */
  private async sharedTargetsFile(
    evalFiles: readonly ProjectEvalFile[],
  ): Promise<string | undefined> {
    const found = new Set<string>();
    for (const file of evalFiles) {
      const targetsFile = await this.targetsFileFor(path.dirname(file.path));
      if (targetsFile) found.add(targetsFile);
    }
    if (found.size > 1) {
      const files = [...found];
      this.add([
        {
          severity: 'error',
          file: files[0]!,
          message: `the eval files use different targets files: ${files.join(', ')}`,
          hint: `run them separately, or ${passOption((this.options.optionNames ?? LIBRARY_OPTION_NAMES).targetsFile, 'PATH')} to choose one`,
        },
      ]);
    }
    return found.values().next().value;
  }
}

/**
 * The eval files that use `target` of targets file `file`: those whose cases
 * run against it, and those of the targets naming it as their `judge_target`.
 */
function usersOf(
  usedBy: Map<string, Set<string>>,
  file: string,
  target: ResolvedTarget,
  all: readonly ResolvedTarget[],
): Set<string> | undefined {
  let users = usedBy.get(`${file}\0${target.name}`);
  for (const other of all) {
    if (other.judgeTarget !== target.name) continue;
    const judged = usedBy.get(`${file}\0${other.name}`);
    if (judged) users = new Set([...(users ?? []), ...judged]);
  }
  return users;
}
