import type { Issue } from '../errors/input-issue.js';
import type { EvalCase } from '../eval-file/eval-case.js';
import type { EvaluatorRegistry } from '../evaluators/evaluator-registry.js';
import { checkTarget, RUN_TARGET_POLICY, targetSettingsIssue } from '../project/check-target.js';
import type { ProviderRegistry } from '../provider/provider-registry.js';
import type { ResolvedTarget } from '../targets/resolved-target.js';

/** The target a case runs against, when no flag, case or file names one. */
export const DEFAULT_TARGET_NAME = 'default';

export interface PlanRunOptions {
  cases: readonly EvalCase[];
  /** Every target defined in the targets file (empty when there is none). */
  targets: readonly ResolvedTarget[];
  /** The targets file, for messages; undefined when none was found. */
  targetsFile?: string;
  /** `--target`: run every case against this target. */
  targetOverride?: string;
  providerRegistry: ProviderRegistry;
  evaluatorRegistry: EvaluatorRegistry;
  /** `--dry-run`: every target is answered by the mock provider, so none needs to exist. */
  dryRun?: boolean;
  /**
   * False when the targets cannot be known (no usable targets file): target
   * names are not resolved and nothing about targets is checked, only the
   * evaluators. The plan then holds placeholder targets and must not run.
   * Default true.
   */
  checkTargets?: boolean;
  /**
   * The targets were already checked with `checkTarget` when their file was
   * loaded (`loadProject` for validate); names and per-file uses are still checked.
   */
  targetsChecked?: boolean;
}

export interface PlannedCase {
  evalCase: EvalCase;
  target: ResolvedTarget;
}

export interface RunPlan {
  cases: PlannedCase[];
  /** The targets the run uses, each once. */
  targets: ResolvedTarget[];
}

/**
 * Chooses each case's target (`--target`, else the case's, else the file's,
 * else `default`) and checks everything the run will use: targets exist,
 * their environment variables are set and their settings are valid, and every
 * case has evaluators that exist and are configured correctly. Returns every
 * problem found; the plan is only usable when no issue is an error.
 */
export function planRun(options: PlanRunOptions): { plan: RunPlan; issues: Issue[] } {
  const issues = new IssueList();
  const byName = new Map(options.targets.map((target) => [target.name, target]));
  const available = [...byName.keys()];
  const used = new Map<string, ResolvedTarget>();
  const checkedUses = new Set<string>();
  const cases: PlannedCase[] = [];

  const checkTargets = options.checkTargets !== false && !options.dryRun;
  for (const evalCase of options.cases) {
    const name = targetNameOf(evalCase, options.targetOverride);
    let target = used.get(name);
    if (!target) {
      const defined = byName.get(name);
      if (options.dryRun || options.checkTargets === false) {
        target = mockTarget(name, defined, evalCase);
      } else if (defined) {
        target = defined;
        const where = { file: target.filePath, line: target.line };
        const checked = options.targetsChecked
          ? []
          : checkTarget(defined, options.providerRegistry, RUN_TARGET_POLICY);
        for (const issue of checked) issues.add({ ...issue, ...where });
      } else {
        issues.add(unknownTargetIssue(name, evalCase, options, available));
        continue;
      }
      used.set(name, target);
    }
    const use = `${target.name}\u0000${evalCase.filePath}`;
    if (checkTargets && !checkedUses.has(use) && options.providerRegistry.has(target.provider)) {
      checkedUses.add(use);
      for (const problem of options.providerRegistry.checkUse(target, evalCase.filePath)) {
        issues.add({
          ...targetSettingsIssue(problem, target),
          file: target.filePath,
          line: target.line,
        });
      }
    }
    checkEvaluators(evalCase, options.evaluatorRegistry, issues);
    cases.push({ evalCase, target });
  }
  return { plan: { cases, targets: [...used.values()] }, issues: issues.list() };
}

/** The name of the target a case runs against: `--target`, else the case's, else `default`. */
export function targetNameOf(evalCase: EvalCase, targetOverride?: string): string {
  return targetOverride ?? evalCase.target ?? DEFAULT_TARGET_NAME;
}

/** Stands in for a target under `--dry-run`, or when targets are not checked. */
function mockTarget(
  name: string,
  defined: ResolvedTarget | undefined,
  evalCase: EvalCase,
): ResolvedTarget {
  return {
    name,
    provider: 'mock',
    settings: {},
    workers: defined?.workers,
    filePath: defined?.filePath ?? evalCase.filePath,
    baseDir: defined?.baseDir ?? evalCase.filePath,
  };
}

function unknownTargetIssue(
  name: string,
  evalCase: EvalCase,
  options: PlanRunOptions,
  available: string[],
): Issue {
  const fromFlag = options.targetOverride !== undefined;
  const hint =
    available.length === 0
      ? options.targetsFile
        ? `${options.targetsFile} defines no targets`
        : 'no targets file was found: create .agentv/targets.yaml next to your evals or pass --targets PATH'
      : `targets in ${options.targetsFile}: ${available.join(', ')}`;
  if (fromFlag) {
    return { severity: 'error', file: '--target', message: `unknown target "${name}"`, hint };
  }
  return {
    severity: 'error',
    file: evalCase.filePath,
    line: evalCase.line,
    caseId: evalCase.id,
    message:
      evalCase.target === undefined
        ? `no target given and no target named "${DEFAULT_TARGET_NAME}" exists`
        : `unknown target "${name}"`,
    hint:
      evalCase.target === undefined && available.length > 0
        ? `set execution.target in the eval file, pass --target, or name a target "${DEFAULT_TARGET_NAME}" (${hint})`
        : hint,
  };
}

function checkEvaluators(evalCase: EvalCase, registry: EvaluatorRegistry, issues: IssueList): void {
  const where = { file: evalCase.filePath, line: evalCase.line, caseId: evalCase.id };
  if (evalCase.evaluators.length === 0) {
    issues.add({
      ...where,
      severity: 'error',
      message: 'has no evaluators',
      hint: 'add `evaluators:` to the case or `execution.evaluators` to the file, e.g. `- { type: contains, value: "refund" }`',
    });
    return;
  }
  for (const config of evalCase.evaluators) {
    if (!registry.has(config.type)) {
      issues.add({
        ...where,
        severity: 'error',
        message: `evaluator "${config.name}" has unknown type "${config.type}"`,
        hint: `use one of: ${registry.types().join(', ')}`,
      });
      continue;
    }
    for (const problem of registry.get(config.type).validate?.(config) ?? []) {
      issues.add({
        ...problem,
        ...where,
        message: `evaluator "${config.name}": ${problem.message}`,
      });
    }
  }
}

/**
 * Collects issues. The same problem in several cases (typically from the
 * file's `execution.evaluators`) is one issue that names every case it is in.
 */
class IssueList {
  private readonly byKey = new Map<string, { issue: Issue; otherCases: string[] }>();

  add(issue: Issue): void {
    const key = `${issue.file}\u0000${issue.target ?? ''}\u0000${issue.message}`;
    const seen = this.byKey.get(key);
    if (!seen) {
      this.byKey.set(key, { issue, otherCases: [] });
    } else if (issue.caseId !== undefined && issue.caseId !== seen.issue.caseId) {
      seen.otherCases.push(issue.caseId);
    }
  }

  list(): Issue[] {
    return [...this.byKey.values()].map(({ issue, otherCases }) =>
      otherCases.length === 0
        ? issue
        : { ...issue, message: `${issue.message} ${alsoIn(otherCases)}` },
    );
  }
}

function alsoIn(caseIds: string[]): string {
  const shown = caseIds
    .slice(0, 10)
    .map((id) => `"${id}"`)
    .join(', ');
  const more = caseIds.length > 10 ? ` and ${caseIds.length - 10} more` : '';
  return `(also in case${caseIds.length === 1 ? '' : 's'} ${shown}${more})`;
}
