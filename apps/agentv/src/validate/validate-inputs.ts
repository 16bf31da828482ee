import path from 'node:path';
import {
  type EvalFile,
  type EvaluatorRegistry,
  findRepoRoot,
  findTargetsFile,
  type InputIssue,
  type LoadResult,
  loadDotEnv,
  loadTargetsFile,
  type ProviderRegistry,
  planRun,
  type ResolvedTarget,
} from '@agentv/core';
import {
  type ConfigLookup,
  createConfigLookup,
  knownSettingsKeys,
  loadEvalFilesWithConfig,
} from '../eval/load-run-inputs.js';
import { detectFileKindOf } from './detect-file-kind.js';
import { CANNOT_RUN_NOTE, createTargetInspector, UNKNOWN_PROVIDER } from './target-inspector.js';

export interface ValidateInputsOptions {
  /** Resolves relative paths; the last place input files are looked up. */
  cwd: string;
  providerRegistry: ProviderRegistry;
  evaluatorRegistry: EvaluatorRegistry;
  /** `--targets`: the targets file eval files are checked against (absolute). */
  targetsFile?: string;
  /** `--target`: check every case against this target. */
  targetOverride?: string;
}

/** Everything `agentv validate` found. */
export interface ValidationReport {
  /** Every file checked (absolute paths): those given, and the targets and config files they use. */
  files: string[];
  /** Every problem, each once; `file` is absolute (or `--target` for the flag). */
  issues: InputIssue[];
}

/**
 * Checks input files without running anything: eval files as `agentv eval`
 * would load and plan them (schema, referenced files, evaluators, and their
 * targets resolved against the targets file found for them, when there is
 * one), targets files with every target's settings checked by its provider,
 * and config files. A target with a provider this AgentV lacks is a warning
 * unless a checked eval file uses it; unset `${{ VAR }}` values are warnings.
 */
export async function validateInputs(
  files: readonly string[],
  options: ValidateInputsOptions,
): Promise<ValidationReport> {
  const session = new ValidationSession(options, files);
  const kinds = await Promise.all(files.map((file) => detectFileKindOf(file)));
  const evalFiles: string[] = [];
  for (const [index, file] of files.entries()) {
    if (kinds[index] === 'targets') await session.targets(file);
    else if (kinds[index] === 'config') await session.config(file);
    else evalFiles.push(file);
  }
  await session.evalFiles(evalFiles);
  return session.finish();
}

class ValidationSession {
  private readonly checked = new Set<string>();
  private readonly issues: InputIssue[] = [];
  private readonly seen = new Set<string>();
  private readonly configs: ConfigLookup;
  private readonly targetsFiles = new Map<string, Promise<LoadResult<ResolvedTarget[]>>>();
  private readonly repoRoots = new Map<string, Promise<string | undefined>>();
  private readonly targetsFilesByDir = new Map<string, Promise<string | undefined>>();
  /** `targetsFile \0 target` → the unknown-provider warning, upgraded when a checked eval file uses the target. */
  private readonly unavailable = new Map<string, InputIssue>();
  /** `targetsFile \0 target` → the eval files that use it. */
  private readonly usedBy = new Map<string, Set<string>>();
  private readonly inspectTarget: ReturnType<typeof createTargetInspector>;

  /** `given` are listed first in the report, in this order; files found while checking follow. */
  constructor(
    private readonly options: ValidateInputsOptions,
    given: readonly string[],
  ) {
    this.configs = createConfigLookup(options.cwd);
    this.inspectTarget = createTargetInspector(options.providerRegistry);
    for (const file of given) this.checked.add(file);
  }

  finish(): ValidationReport {
    for (const [key, issue] of this.unavailable) {
      const users = this.usedBy.get(key);
      if (users === undefined) continue;
      const shown = [...users].map((file) => displayPath(this.options.cwd, file));
      issue.severity = 'error';
      issue.message = issue.message.replace(CANNOT_RUN_NOTE, '');
      issue.hint = `use one of: ${this.options.providerRegistry.kinds().join(', ')} (used by ${shown.join(', ')})`;
    }
    return { files: [...this.checked], issues: this.issues };
  }

  private add(issues: readonly InputIssue[]): void {
    for (const issue of issues) {
      const key = [
        issue.file,
        issue.line,
        issue.column,
        issue.caseId,
        issue.target,
        issue.message,
      ].join('\0');
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.issues.push(issue);
    }
  }

  /** The targets file a run of eval files in `dir` would use, looked up once per directory. */
  private targetsFileFor(dir: string): Promise<string | undefined> {
    let found = this.targetsFilesByDir.get(dir);
    if (found === undefined) {
      found = this.repoRoot(dir).then((repoRoot) =>
        findTargetsFile(dir, { repoRoot, cwd: this.options.cwd }),
      );
      this.targetsFilesByDir.set(dir, found);
    }
    return found;
  }

  private repoRoot(dir: string): Promise<string | undefined> {
    let root = this.repoRoots.get(dir);
    if (root === undefined) {
      root = findRepoRoot(dir);
      this.repoRoots.set(dir, root);
    }
    return root;
  }

  async config(file: string): Promise<void> {
    this.checked.add(file);
    const { result } = await this.configs.load(file);
    this.add(result.issues);
  }

  /** Loads and checks a targets file once; its issues are reported the first time. */
  targets(file: string): Promise<LoadResult<ResolvedTarget[]>> {
    let loading = this.targetsFiles.get(file);
    if (loading === undefined) {
      this.checked.add(file);
      loading = this.loadTargets(file);
      this.targetsFiles.set(file, loading);
    }
    return loading;
  }

  private async loadTargets(file: string): Promise<LoadResult<ResolvedTarget[]>> {
    const dir = path.dirname(file);
    const { env } = await loadDotEnv(dir, {
      repoRoot: await this.repoRoot(dir),
      cwd: this.options.cwd,
      processEnv: process.env,
    });
    const loaded = await loadTargetsFile(file, {
      env,
      knownKeys: knownSettingsKeys(this.options.providerRegistry),
      inspectTarget: this.inspectTarget,
    });
    for (const issue of loaded.issues) {
      if (issue.target !== undefined && issue.message.startsWith(UNKNOWN_PROVIDER)) {
        this.unavailable.set(targetKey(file, issue.target), issue);
      }
    }
    this.add(loaded.issues);
    return loaded;
  }

  /** Loads eval files together (large inputs load on worker threads), then plans each. */
  async evalFiles(files: readonly string[]): Promise<void> {
    const issues: InputIssue[] = [];
    const loaded = await loadEvalFilesWithConfig(files, {
      cwd: this.options.cwd,
      repoRootOf: (dir) => this.repoRoot(dir),
      configs: this.configs,
      issues,
      // Validation runs nothing afterwards, so it can spend memory on speed.
      parallel: true,
    });
    this.add(issues);
    for (const [index, { value, configFile }] of loaded.entries()) {
      if (configFile) this.checked.add(configFile);
      if (value) await this.plan(files[index]!, value);
    }
  }

  /** Resolves the cases' targets and evaluators as a run would, without running anything. */
  private async plan(file: string, evalFile: EvalFile): Promise<void> {
    const { cwd } = this.options;
    const dir = path.dirname(file);
    const targetsFile = this.options.targetsFile ?? (await this.targetsFileFor(dir));
    if (targetsFile === undefined) {
      this.add([
        {
          severity: 'warning',
          file,
          message: 'no targets file was found, so the targets of its cases were not checked',
          hint: 'create .agentv/targets.yaml next to your evals (agentv init writes one) or pass --targets PATH',
        },
      ]);
    }
    const targets = targetsFile ? (await this.targets(targetsFile)).value : undefined;
    const { plan, issues: planIssues } = planRun({
      cases: evalFile.cases,
      // Unset variables are warnings of the targets file here; a run reports them as errors.
      targets: (targets ?? []).map(({ missingVariables: _, ...target }) => target),
      targetsFile: targetsFile && displayPath(cwd, targetsFile),
      targetOverride: this.options.targetOverride,
      // Providers and settings were checked with the targets file; here only names resolve.
      providerRegistry: { ...this.options.providerRegistry, has: () => true, validate: () => [] },
      evaluatorRegistry: this.options.evaluatorRegistry,
      // Without a usable targets file only the evaluators can be checked.
      dryRun: targets === undefined,
    });
    this.add(planIssues);
    if (targets === undefined || targetsFile === undefined) return;
    // Judge targets the graders ask are used too.
    const judges = plan.cases.flatMap((planned) =>
      planned.judgeTarget ? [planned.judgeTarget] : [],
    );
    for (const target of [...plan.targets, ...judges]) {
      const key = targetKey(targetsFile, target.name);
      const users = this.usedBy.get(key) ?? new Set<string>();
      users.add(file);
      this.usedBy.set(key, users);
    }
  }
}

function targetKey(file: string, target: string): string {
  return `${file}\0${target}`;
}

/** `file` relative to `cwd` when it is inside it, else as given. */
export function displayPath(cwd: string, file: string): string {
  if (!path.isAbsolute(file)) return file;
  const relative = path.relative(cwd, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}
