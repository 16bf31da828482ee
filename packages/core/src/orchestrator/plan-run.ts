import type { Issue } from '../errors/input-issue.js';
import type { EvalCase } from '../eval-file/eval-case.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import { evaluatorIssuePosition } from '../eval-file/evaluator-positions.js';
import type { EvaluatorRegistry } from '../evaluators/evaluator.js';
import { evaluatorKeyIssues, unknownTypeHint } from '../evaluators/evaluator-keys.js';
import { JUDGE_HINT, needsJudge } from '../evaluators/needs-judge.js';
import { sandboxGraderIssues } from '../evaluators/sandbox-grader.js';
import { workspaceGraderIssues } from '../evaluators/workspace-grader-issues.js';
import { batchWorkspaceIssue } from '../project/batch-workspace-issue.js';
import { checkTarget, RUN_TARGET_POLICY } from '../project/check-target.js';
import { LIBRARY_OPTION_NAMES, type OptionNames, passOption } from '../project/option-names.js';
import { DEFAULT_TARGET_NAME, targetNamesOf } from '../project/target-names-of.js';
import type { ProviderRegistry } from '../provider/provider-registry.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import { targetSettingsIssue } from '../provider/target-settings-issue.js';
import { targetIssuePosition } from '../targets/target-positions.js';
import { closestMatch } from '../util/closest-match.js';
import { sortIssues } from '../util/load-result.js';
import {
  allEvaluatorsOf,
  hasTurnGraders,
  planSimulator,
  type SimulatorLookup,
  turnsAsCases,
} from './plan-conversation.js';
import { sandboxHookIssues } from './sandbox-hook-issues.js';

export interface PlanRunOptions {
  cases: readonly EvalCase[];
  /** Every target defined in the targets file (empty when there is none). */
  targets: readonly ResolvedTarget[];
  /** The targets file, for messages; undefined when none was found. */
  targetsFile?: string;
  /** `--target`: run every case against this target, or against each of these targets. */
  targetOverride?: string | readonly string[];
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
  /**
   * Eval file → the targets it declares inline (`LoadedProject.inlineTargets`):
   * its cases look a name up there first, then in `targets`. Undefined for a
   * file means its inline targets have errors (already reported): its cases'
   * targets are then not checked.
   */
  inlineTargets?: ReadonlyMap<string, readonly ResolvedTarget[] | undefined>;
  /** How messages name `targetOverride` and `judgeTargetOverride`; default `LIBRARY_OPTION_NAMES`. */
  optionNames?: OptionNames;
}

export interface PlannedCase {
  evalCase: EvalCase;
  target: ResolvedTarget;
  /** The target graders ask (`--judge-target`, else the eval file's, else the target's `judge_target`). */
  judgeTarget?: ResolvedTarget;
  /** The target playing the user of a conversation with `simulated_user:`. */
  simulatorTarget?: ResolvedTarget;
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
  /** Targets already said to judge their own answers (once per run). */
  const selfJudges = new Set<string>();
  const checkedEvaluators = new WeakSet<readonly EvaluatorConfig[]>();
  const cases: PlannedCase[] = [];

  const checkTargets = options.checkTargets !== false && !options.dryRun;
  /** The target, eval file and workspace of the last use of a target checked (or found checked). */
  let lastUse:
    | { target: ResolvedTarget; filePath: string; workspace: EvalCase['workspace'] }
    | undefined;
  /** Whether a case's graders need a judge, by its evaluator list (cases share their file's). */
  const judgeNeeded = new WeakMap<readonly EvaluatorConfig[], boolean>();
  const needsJudgeTarget = (evalCase: EvalCase): boolean => {
    const graders = allEvaluatorsOf(evalCase);
    let needed = judgeNeeded.get(graders);
    if (needed === undefined) {
      needed = graders.some((config) => needsJudge(config, options.evaluatorRegistry));
      judgeNeeded.set(graders, needed);
    }
    return needed;
  };
  /**
   * The last case planned without an issue, with the name of its target: a case after it that
   * shares everything planning reads of a case (see `planCase`) is planned the same way.
   */
  let lastPlanned: { name: string; planned: PlannedCase } | undefined;
  let names: readonly string[] = [];
  let namesOf: EvalCase | undefined;
  // Indexed loops: they run for every case, a for-of loop allocates an iterator result per step.
  for (let index = 0; index < options.cases.length; index++) {
    const original = options.cases[index]!;
    // The cases of a file mostly name its targets (one shared list): the names are the last case's.
    if (
      namesOf === undefined ||
      original.target !== namesOf.target ||
      original.targets !== namesOf.targets
    ) {
      names = targetNamesOf(original, options.targetOverride);
      namesOf = original;
    }
    for (let nameIndex = 0; nameIndex < names.length; nameIndex++) {
      const planned = planCase(original, names[nameIndex]!);
      if (planned) cases.push(planned);
    }
  }
  return { plan: { cases, targets: [...used.values()] }, issues: issues.list() };

  function planCase(original: EvalCase, name: string): PlannedCase | undefined {
    // Consecutive cases of a file mostly differ only in what planning does not read (their id,
    // messages, outcome): the first of them found no problem, so none of them has one.
    const last = lastPlanned;
    if (last !== undefined && last.name === name && planSame(last.planned.evalCase, original)) {
      const planned: PlannedCase = { evalCase: original, target: last.planned.target };
      if (last.planned.judgeTarget) planned.judgeTarget = last.planned.judgeTarget;
      return planned;
    }
    const before = issues.added;
    const planned = planCaseOnce(original, name);
    lastPlanned =
      planned !== undefined && planned.evalCase === original && issues.added === before
        ? { name, planned }
        : undefined;
    return planned;
  }

  function planCaseOnce(original: EvalCase, name: string): PlannedCase | undefined {
    let evalCase = original;
    const inline = findInline(options, evalCase.filePath, name);
    const key = inline.target ? `${inline.target.filePath}\u0000${name}` : name;
    let target = used.get(key);
    const defined = inline.target ?? byName.get(name);
    if (!target) {
      if (options.dryRun || options.checkTargets === false || inline.unusable) {
        target = mockTarget(name, defined, evalCase);
      } else if (defined) {
        target = defined;
        const checked = options.targetsChecked
          ? []
          : checkTarget(defined, options.providerRegistry, RUN_TARGET_POLICY);
        // Located and ordered as `validate` prints them.
        const located = checked.map((issue) => ({
          ...issue,
          ...targetIssuePosition(defined, issue.path),
        }));
        for (const issue of sortIssues(located)) issues.add(issue);
      } else {
        issues.add(unknownTargetIssue(name, evalCase, options, available));
        // Its graders and rubrics are checked all the same, so that one look shows every problem
        // of the file; whether it needs a judge depends on the target, so that waits for it.
        if (evalCase.evaluators.length > 0 && !checkedEvaluators.has(evalCase.evaluators)) {
          checkEvaluators(evalCase, options.evaluatorRegistry, issues);
          checkedEvaluators.add(evalCase.evaluators);
        }
        checkRubrics(evalCase, issues);
        return undefined;
      }
      used.set(key, target);
    }
    // Consecutive cases of a file mostly share their target and workspace: checked once.
    const sameUse =
      lastUse !== undefined &&
      lastUse.target === target &&
      lastUse.filePath === evalCase.filePath &&
      lastUse.workspace === evalCase.workspace;
    const use = sameUse
      ? undefined
      : `${target.name}\u0000${evalCase.filePath}\u0000${evalCase.workspace?.key ?? ''}`;
    if (!sameUse) {
      lastUse = { target, filePath: evalCase.filePath, workspace: evalCase.workspace };
    }
    if (
      use !== undefined &&
      checkTargets &&
      !checkedUses.has(use) &&
      options.providerRegistry.has(target.provider)
    ) {
      checkedUses.add(use);
      const mode = options.validating ? 'validate' : 'run';
      const problems = options.providerRegistry.checkUse(
        target,
        evalCase.filePath,
        mode,
        evalCase.workspace,
      );
      for (const problem of problems) {
        const issue = targetSettingsIssue(problem, target);
        const dropHint = issue.severity === 'error' ? leaveOutHint(target.name, options) : '';
        issues.add({
          ...issue,
          ...targetIssuePosition(target, problem.path),
          ...(dropHint === ''
            ? {}
            : { hint: issue.hint ? `${issue.hint}; ${dropHint}` : dropHint }),
        });
      }
    }
    if (evalCase.workspace !== undefined) {
      const refused = batchWorkspaceIssue(evalCase, target);
      if (refused !== undefined) issues.add(refused);
    }
    const configuredJudge =
      options.judgeTargetOverride ?? evalCase.judgeTarget ?? target.judgeTarget;
    // With no judge configured, a target that can answer a judge prompt (an LLM, `mock`) judges
    // its own answers, as AgentV 1.x-4.x does; its kind as defined counts, not a dry run's mock.
    const selfJudging =
      configuredJudge === undefined &&
      defined !== undefined &&
      options.providerRegistry.canJudge(defined.provider);
    const judgeName = configuredJudge ?? (selfJudging ? target.name : undefined);
    const turnGraders = hasTurnGraders(evalCase);
    if (evalCase.evaluators.length === 0 && judgeName !== undefined && !turnGraders) {
      // A case with no evaluators anywhere is graded by a default llm_judge (README, "Graders").
      evalCase = { ...evalCase, evaluators: [{ name: 'llm_judge', type: 'llm_judge' }] };
    }
    // Cases sharing the file's evaluators share their check, so it runs once per file: once
    // it found nothing it finds nothing for the next case either, and the problems of the
    // file's `execution.evaluators` are the file's, the same for every case. Rubric items
    // are the case's own and are checked for each.
    // A conversation graded turn by turn needs no grader of the whole.
    const turnsOnly = evalCase.evaluators.length === 0 && turnGraders;
    if (evalCase.conversation !== undefined) {
      for (const turn of turnsAsCases(evalCase))
        checkEvaluators(turn, options.evaluatorRegistry, issues);
    }
    if (!turnsOnly && !checkedEvaluators.has(evalCase.evaluators)) {
      const before = issues.added;
      checkEvaluators(evalCase, options.evaluatorRegistry, issues);
      // A case whose own list is misspelt is not checked for having none: that says nothing
      // of the other cases with the (empty) list it fell back to.
      const unchecked = evalCase.evaluatorsMisspelt === true && evalCase.evaluators.length === 0;
      if (!unchecked && (issues.added === before || isFileEvaluatorList(evalCase))) {
        checkedEvaluators.add(evalCase.evaluators);
      }
    }
    checkRubrics(evalCase, issues);
    const planned: PlannedCase = { evalCase, target };
    if (evalCase.conversation?.simulatedUser !== undefined) {
      const simulator = planSimulator(
        evalCase,
        simulatorLookup(evalCase.conversation.simulatedUser.target),
      );
      for (const issue of simulator.issues) issues.add(issue);
      if (simulator.target) planned.simulatorTarget = simulator.target;
    }
    if (needsJudgeTarget(evalCase)) {
      const judgeTarget = planJudge(evalCase, target, judgeName, options, judges, issues);
      if (judgeTarget) planned.judgeTarget = judgeTarget;
      if (selfJudging && !selfJudges.has(key)) {
        selfJudges.add(key);
        issues.add({
          ...targetIssuePosition(defined, []),
          target: target.name,
          severity: 'warning',
          message: `no judge target is configured: target "${target.name}" (${defined.provider}) judges its own answers`,
          hint: `to have another model judge, set \`judge_target: <target>\` on target "${target.name}", \`execution.judge_target\` in the eval file, or ${passOption((options.optionNames ?? LIBRARY_OPTION_NAMES).judgeTarget, 'NAME')}`,
        });
      }
    }
    return planned;

    function simulatorLookup(name: string): SimulatorLookup {
      const inline = findInline(options, evalCase.filePath, name);
      const defined = inline.target ?? byName.get(name);
      return {
        defined,
        mocked:
          options.dryRun === true || options.checkTargets === false || inline.unusable === true,
        mock: () => mockTarget(name, defined, evalCase),
        check: (simulator) => {
          const key = `simulator\u0000${simulator.filePath}\u0000${name}`;
          if (options.targetsChecked || checkedUses.has(key)) return [];
          checkedUses.add(key);
          return checkTarget(simulator, options.providerRegistry, RUN_TARGET_POLICY).map(
            (issue) => ({ ...issue, ...targetIssuePosition(simulator, issue.path) }),
          );
        },
        available,
      };
    }
  }
}

/**
 * True when `planCase` plans `next` as it planned `planned` (for the same target name, having
 * found no problem): they share the eval file, workspace, judge target and grader list, and
 * neither is a conversation or has rubric items of its own.
 */
function planSame(planned: EvalCase, next: EvalCase): boolean {
  return (
    next.evaluators === planned.evaluators &&
    next.filePath === planned.filePath &&
    next.workspace === planned.workspace &&
    next.judgeTarget === planned.judgeTarget &&
    next.sharedEvaluatorsInvalid === planned.sharedEvaluatorsInvalid &&
    next.evaluatorsMisspelt === planned.evaluatorsMisspelt &&
    next.testsFormat === planned.testsFormat &&
    next.conversation === undefined &&
    planned.conversation === undefined &&
    next.rubricItems === undefined &&
    planned.rubricItems === undefined
  );
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
  const inlineJudge =
    judgeName === undefined ? {} : findInline(options, evalCase.filePath, judgeName);
  const targetUnknown =
    !options.targets.some((candidate) => candidate.name === target.name) &&
    findInline(options, evalCase.filePath, target.name).target === undefined;
  const mocked = options.dryRun || options.checkTargets === false || inlineJudge.unusable === true;
  if (judgeName === undefined && mocked && targetUnknown) judgeName = 'judge';
  const names = options.optionNames ?? LIBRARY_OPTION_NAMES;
  const where = caseLocation(evalCase);
  const asking = evalCase.evaluators
    .filter((config) => needsJudge(config, options.evaluatorRegistry))
    .map((config) => `"${config.name}" (${config.type})`)
    .join(', ');
  if (judgeName === undefined) {
    issues.add({
      ...where,
      severity: 'error',
      message: `evaluator ${asking} needs a judge target, and none is configured`,
      hint: `set \`judge_target: <target>\` on target "${target.name}", \`execution.judge_target\` in the eval file, or ${passOption(names.judgeTarget, 'NAME')}`,
    });
    return undefined;
  }
  const judgeKey = inlineJudge.target
    ? `${inlineJudge.target.filePath}\u0000${judgeName}`
    : judgeName;
  const known = judges.get(judgeKey);
  if (known) return known;
  const defined =
    inlineJudge.target ?? options.targets.find((candidate) => candidate.name === judgeName);
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
        ? names.judgeTarget
        : evalCase.judgeTarget !== undefined
          ? 'execution.judge_target of the eval file'
          : `judge_target of target "${target.name}"`;
    const available = options.targets.map((candidate) => candidate.name);
    // Located at the name that is wrong: the flag, the eval file's value, or the target's setting.
    const location =
      options.judgeTargetOverride !== undefined
        ? { file: names.judgeTarget }
        : evalCase.judgeTarget !== undefined
          ? { ...where, ...evalCase.targetPositions?.judge_target }
          : { ...targetIssuePosition(target, ['judge_target']), target: target.name };
    issues.add({
      ...location,
      severity: 'error',
      message: `judge target "${judgeName}" (from ${source}) does not exist`,
      hint:
        available.length > 0
          ? `name one of the targets in ${options.targetsFile}: ${available.join(', ')}`
          : 'define the judge target in .agentv/targets.yaml',
    });
    return undefined;
  }
  judges.set(judgeKey, judge);
  return judge;
}

/** Target `name` as declared inline by eval file `file`; `unusable` when its inline targets have errors. */
function findInline(options: PlanRunOptions, file: string, name: string): InlineTarget {
  if (options.inlineTargets?.has(file) !== true) return NOT_INLINE;
  const inline = options.inlineTargets.get(file);
  if (inline === undefined) return { unusable: true };
  const target = inline.find((candidate) => candidate.name === name);
  return target === undefined ? NOT_INLINE : { target };
}

interface InlineTarget {
  target?: ResolvedTarget;
  unusable?: boolean;
}

/** A name no inline target has: one object, asked for every case of most runs. */
const NOT_INLINE: InlineTarget = Object.freeze({});

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

/**
 * With several targets asked for (`--target a --target b`), how to run the others
 * without the broken one: nothing runs until every target can (no half-run).
 */
function leaveOutHint(name: string, options: PlanRunOptions): string {
  const asked = typeof options.targetOverride === 'string' ? [] : (options.targetOverride ?? []);
  const others = [...new Set(asked)].filter((other) => other !== name);
  if (others.length === 0) return '';
  const names = options.optionNames ?? LIBRARY_OPTION_NAMES;
  return names.target.startsWith('-')
    ? `or run the other targets without it: ${others.map((other) => `${names.target} ${other}`).join(' ')}`
    : `or leave "${name}" out of the \`${names.target}\` option`;
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
  const fromFlag = options.targetOverride !== undefined && options.targetOverride.length > 0;
  const names = options.optionNames ?? LIBRARY_OPTION_NAMES;
  const inline = (options.inlineTargets?.get(evalCase.filePath) ?? []).map((t) => t.name);
  const listed =
    available.length === 0
      ? options.targetsFile
        ? `${options.targetsFile} defines no targets`
        : `no targets file was found: create .agentv/targets.yaml next to your evals or ${passOption(names.targetsFile, 'PATH')}`
      : `targets in ${options.targetsFile}: ${available.join(', ')}`;
  const inlineHint = `targets declared in this eval file: ${inline.join(', ')}`;
  const hint =
    closeTarget(name, [...available, ...inline]) +
    (inline.length === 0
      ? listed
      : available.length === 0 && !options.targetsFile
        ? inlineHint
        : `${listed}; ${inlineHint}`);
  if (fromFlag) {
    return { severity: 'error', file: names.target, message: `unknown target "${name}"`, hint };
  }
  return {
    severity: 'error',
    ...caseLocation(evalCase),
    // The name as written in `execution.target(s)`, else (no target named) the case.
    ...evalCase.targetPositions?.[`target.${name}`],
    message:
      evalCase.target === undefined && evalCase.targets === undefined
        ? `no target given and no target named "${DEFAULT_TARGET_NAME}" exists`
        : `unknown target "${name}"`,
    hint:
      evalCase.target === undefined &&
      evalCase.targets === undefined &&
      available.length + inline.length > 0
        ? `set execution.target in the eval file, ${passOption(names.target)}, or name a target "${DEFAULT_TARGET_NAME}" (${hint})`
        : hint,
  };
}

/** Where an issue about `evalCase` as a whole points: the case in its eval file. */
function caseLocation(evalCase: EvalCase): Pick<Issue, 'file' | 'line' | 'column' | 'caseId'> {
  const where: Pick<Issue, 'file' | 'line' | 'column' | 'caseId'> = {
    file: evalCase.filePath,
    caseId: evalCase.id,
  };
  if (evalCase.line !== undefined) where.line = evalCase.line;
  if (evalCase.column !== undefined) where.column = evalCase.column;
  return where;
}

function checkEvaluators(evalCase: EvalCase, registry: EvaluatorRegistry, issues: IssueList): void {
  const where = caseLocation(evalCase);
  if (evalCase.evaluators.length === 0) {
    // The file's list has errors, or the case's own is under a misspelt key: either is reported
    // where it is written, and is why the case has none.
    if (evalCase.sharedEvaluatorsInvalid || evalCase.evaluatorsMisspelt) return;
    issues.add({
      ...where,
      severity: 'error',
      ...(evalCase.testsFormat
        ? {
            message: 'has no assertions',
            hint: `add \`assertions:\` to the test or to the file, e.g. \`- { type: contains, value: "refund" }\`, ${JUDGE_HINT}`,
          }
        : {
            message: 'has no evaluators',
            hint: `add \`evaluators:\` to the case or \`execution.evaluators\` to the file, e.g. \`- { type: contains, value: "refund" }\`, ${JUDGE_HINT}`,
          }),
    });
    return;
  }
  for (const config of evalCase.evaluators) {
    // A problem with one of the file's `execution.evaluators` is the file's: reported once,
    // naming that list rather than the first case that uses it.
    const at = (path: readonly (string | number)[] | undefined, message: string) => {
      const { shared, ...position } = evaluatorIssuePosition(evalCase, config.name, path);
      return shared
        ? { file: where.file, ...position, message: `execution.evaluators: ${message}` }
        : { ...where, ...position, message };
    };
    if (!registry.has(config.type)) {
      issues.add({
        severity: 'error',
        ...at(
          ['type'],
          `${evalCase.testsFormat ? 'assertion' : 'evaluator'} "${config.name}" has unknown type "${config.type}"`,
        ),
        hint: unknownTypeHint(config.type, registry, evalCase.testsFormat),
      });
      continue;
    }
    const evaluator = registry.get(config.type);
    const problems = [
      ...(evaluator.validate?.(config, registry) ?? []),
      ...evaluatorKeyIssues(config, registry),
    ];
    for (const problem of problems) {
      issues.add({
        ...problem,
        ...at(problem.path, `evaluator "${config.name}": ${problem.message}`),
      });
    }
  }
  if (evalCase.workspace === undefined) {
    for (const issue of workspaceGraderIssues(evalCase, registry)) issues.add(issue);
  }
  for (const issue of sandboxGraderIssues(evalCase)) issues.add(issue);
  for (const issue of sandboxHookIssues(evalCase)) issues.add(issue);
}

/** A rubric grader needs rubric items: the case's own or the grader's. */
function checkRubrics(evalCase: EvalCase, issues: IssueList): void {
  for (const config of evalCase.evaluators) {
    if (rubricWithoutItems(config, evalCase)) {
      issues.add({
        ...caseLocation(evalCase),
        severity: 'error',
        message: `evaluator "${config.name}" (rubric) has no rubric items`,
        hint: 'add `rubrics:` to the case (or to the evaluator), e.g. `rubrics: ["Mentions the refund amount"]`',
      });
    }
  }
}

/** True when the case's evaluators are its file's `execution.evaluators` (their positions say so). */
function isFileEvaluatorList(evalCase: EvalCase): boolean {
  const first = evalCase.evaluators[0];
  return first !== undefined && evalCase.evaluatorPositions?.[first.name]?.shared === true;
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
  /** How many issues were added, the same one in several cases counted each time. */
  added = 0;

  add(issue: Issue): void {
    this.added++;
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
