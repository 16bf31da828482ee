import type { Issue } from '../errors/input-issue.js';
import type { EvalCase } from '../eval-file/eval-case.js';
import { evaluatorIssuePosition } from '../eval-file/evaluator-positions.js';
import type { EvaluatorRegistry } from '../evaluators/evaluator.js';
import type { EvaluatorConfig } from '../evaluators/evaluator-config.js';
import { needsJudge } from '../evaluators/judge.js';
import { checkTarget, RUN_TARGET_POLICY, targetSettingsIssue } from '../project/check-target.js';
import type { ProviderRegistry } from '../provider/provider-registry.js';
import type { ResolvedTarget } from '../targets/resolved-target.js';
import { targetIssuePosition } from '../targets/target-positions.js';
import { closestMatch } from '../util/closest-match.js';
import { didYouMean } from '../util/did-you-mean.js';

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
  /** Planned for `agentv validate`: `checkUse` reports what may differ at run time as warnings. */
  validating?: boolean;
  /** `--judge-target`: the target LLM graders ask, for every case. */
  judgeTargetOverride?: string;
}

export interface PlannedCase {
  evalCase: EvalCase;
  target: ResolvedTarget;
  /** The target graders ask (`--judge-target`, else the eval file's, else the target's `judge_target`). */
  judgeTarget?: ResolvedTarget;
}

/** What the judge answers in a dry run: a fixed passing grade. */
export const DRY_RUN_JUDGE_REPLY = JSON.stringify({
  score: 1,
  hits: [],
  misses: [],
  reasoning: 'dry run: the judge was not asked',
});

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
  const judges = new Map<string, ResolvedTarget>();
  const cases: PlannedCase[] = [];

  const checkTargets = options.checkTargets !== false && !options.dryRun;
  for (const original of options.cases) {
    let evalCase = original;
    const name = targetNameOf(evalCase, options.targetOverride);
    let target = used.get(name);
    if (!target) {
      const defined = byName.get(name);
      if (options.dryRun || options.checkTargets === false) {
        target = mockTarget(name, defined, evalCase);
      } else if (defined) {
        target = defined;
        const checked = options.targetsChecked
          ? []
          : checkTarget(defined, options.providerRegistry, RUN_TARGET_POLICY);
        for (const issue of checked) {
          issues.add({ ...issue, ...targetIssuePosition(defined, issue.path) });
        }
      } else {
        issues.add(unknownTargetIssue(name, evalCase, options, available));
        continue;
      }
      used.set(name, target);
    }
    const use = `${target.name}\u0000${evalCase.filePath}`;
    if (checkTargets && !checkedUses.has(use) && options.providerRegistry.has(target.provider)) {
      checkedUses.add(use);
      const mode = options.validating ? 'validate' : 'run';
      for (const problem of options.providerRegistry.checkUse(target, evalCase.filePath, mode)) {
        issues.add({
          ...targetSettingsIssue(problem, target),
          ...targetIssuePosition(target, problem.path),
        });
      }
    }
    const judgeName = options.judgeTargetOverride ?? evalCase.judgeTarget ?? target.judgeTarget;
    if (evalCase.evaluators.length === 0 && judgeName !== undefined) {
      // SPEC 5.4: a case with no evaluators anywhere is graded by a default llm_judge.
      evalCase = { ...evalCase, evaluators: [{ name: 'llm_judge', type: 'llm_judge' }] };
    }
    checkEvaluators(evalCase, options.evaluatorRegistry, issues);
    const planned: PlannedCase = { evalCase, target };
    if (evalCase.evaluators.some(needsJudge)) {
      const judgeTarget = planJudge(evalCase, target, judgeName, options, judges, issues);
      if (judgeTarget) planned.judgeTarget = judgeTarget;
    }
    cases.push(planned);
  }
  return { plan: { cases, targets: [...used.values()] }, issues: issues.list() };
}

/** Resolves and checks the judge target of a case whose evaluators need one. */
function planJudge(
  evalCase: EvalCase,
  target: ResolvedTarget,
  configuredJudge: string | undefined,
  options: PlanRunOptions,
  judges: Map<string, ResolvedTarget>,
  issues: IssueList,
): ResolvedTarget | undefined {
  let judgeName = configuredJudge;
  // Without the target's definition (no usable targets file) its judge_target is unknown, not missing.
  const targetUnknown = !options.targets.some((candidate) => candidate.name === target.name);
  const mocked = options.dryRun || options.checkTargets === false;
  if (judgeName === undefined && mocked && targetUnknown) judgeName = 'judge';
  const where = { file: evalCase.filePath, line: evalCase.line, caseId: evalCase.id };
  const asking = evalCase.evaluators
    .filter(needsJudge)
    .map((config) => `"${config.name}" (${config.type})`)
    .join(', ');
  if (judgeName === undefined) {
    issues.add({
      ...where,
      severity: 'error',
      message: `evaluator ${asking} needs a judge target, and none is configured`,
      hint: `set \`judge_target: <target>\` on target "${target.name}", \`execution.judge_target\` in the eval file, or pass --judge-target NAME`,
    });
    return undefined;
  }
  const known = judges.get(judgeName);
  if (known) return known;
  const defined = options.targets.find((candidate) => candidate.name === judgeName);
  let judge: ResolvedTarget;
  if (mocked) {
    judge = {
      ...mockTarget(judgeName, defined, evalCase),
      settings: { response: DRY_RUN_JUDGE_REPLY },
    };
  } else if (defined) {
    judge = defined;
    const checked = options.targetsChecked
      ? []
      : checkTarget(defined, options.providerRegistry, RUN_TARGET_POLICY);
    for (const issue of checked) {
      issues.add({ ...issue, ...targetIssuePosition(defined, issue.path) });
    }
  } else {
    const source =
      options.judgeTargetOverride !== undefined
        ? '--judge-target'
        : evalCase.judgeTarget !== undefined
          ? 'execution.judge_target of the eval file'
          : `judge_target of target "${target.name}"`;
    const available = options.targets.map((candidate) => candidate.name);
    issues.add({
      ...(options.judgeTargetOverride !== undefined ? { file: '--judge-target' } : where),
      severity: 'error',
      message: `judge target "${judgeName}" (from ${source}) does not exist`,
      hint:
        available.length > 0
          ? `name one of the targets in ${options.targetsFile}: ${available.join(', ')}`
          : 'define the judge target in .agentv/targets.yaml',
    });
    return undefined;
  }
  judges.set(judgeName, judge);
  return judge;
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
    // Graders still need to know which judge the target names.
    ...(defined?.judgeTarget === undefined ? {} : { judgeTarget: defined.judgeTarget }),
    filePath: defined?.filePath ?? evalCase.filePath,
    baseDir: defined?.baseDir ?? evalCase.filePath,
  };
}

/** `did you mean "default"? ` when a defined target is a likely typo of `name`. */
function closeTarget(name: string, available: readonly string[]): string {
  const match = closestMatch(name, available);
  return match === undefined ? '' : `did you mean "${match}"? `;
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
      : `${closeTarget(name, available)}targets in ${options.targetsFile}: ${available.join(', ')}`;
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
    const at = (path?: readonly (string | number)[]) => ({
      ...where,
      ...evaluatorIssuePosition(evalCase, config.name, path),
    });
    if (!registry.has(config.type)) {
      issues.add({
        ...at(['type']),
        severity: 'error',
        message: `evaluator "${config.name}" has unknown type "${config.type}"`,
        hint: didYouMean(config.type, registry.types()),
      });
      continue;
    }
    for (const problem of registry.get(config.type).validate?.(config, registry) ?? []) {
      issues.add({
        ...problem,
        ...at(problem.path),
        message: `evaluator "${config.name}": ${problem.message}`,
      });
    }
    if (rubricWithoutItems(config, evalCase)) {
      issues.add({
        ...where,
        severity: 'error',
        message: `evaluator "${config.name}" (rubric) has no rubric items`,
        hint: 'add `rubrics:` to the case (or to the evaluator), e.g. `rubrics: ["Mentions the refund amount"]`',
      });
    }
  }
}

/** A `rubric` (possibly a composite member) with no items of its own while the case has none. */
function rubricWithoutItems(config: EvaluatorConfig, evalCase: EvalCase): boolean {
  if (config.type === 'composite' && Array.isArray(config.evaluators)) {
    return config.evaluators.some(
      (member) =>
        typeof member === 'object' &&
        member !== null &&
        rubricWithoutItems(member as EvaluatorConfig, evalCase),
    );
  }
  return (
    config.type === 'rubric' &&
    config.rubrics === undefined &&
    (evalCase.rubricItems?.length ?? 0) === 0
  );
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
