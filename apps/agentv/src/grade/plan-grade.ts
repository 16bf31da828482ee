import type {
  EvalCase,
  EvaluatorRegistry,
  Issue,
  PlannedCase,
  ProviderRegistry,
  RunPlan,
} from '@agentv/core';
import { checkTarget, RUN_TARGET_POLICY, uniqueIssues } from '@agentv/core/internal';
import type { ResolvedTarget } from '@agentv/core/provider-utils';
import type { ReadResultLine, ResultRecord } from '@agentv/results';
import { caseKey } from '../eval/shard.js';
import { planPerTarget } from './plan-per-target.js';
import { REPLAY_PROVIDER_KIND, type RecordedAnswers, replayKey } from './replay-provider.js';

/** A recorded case `agentv grade` could not grade, and why. */
export interface UngradedCase {
  evalFile: string;
  evalId: string;
  target: string;
  /** 1-based line in the result file. */
  line: number;
  reason: string;
}

/** A case of the eval files the result file has no line for. */
export interface UnrecordedCase {
  evalFile: string;
  evalId: string;
  target: string;
}

export interface GradePlan {
  plan: RunPlan;
  answers: RecordedAnswers;
  /** The recorded line of each planned case, by `caseKey(eval file, id, target)`. */
  recorded: Map<string, ResultRecord>;
  ungraded: UngradedCase[];
  unrecorded: UnrecordedCase[];
  /** Recorded lines of eval files that were not given on the command line. */
  otherFiles: number;
  issues: Issue[];
}

export interface PlanGradeOptions {
  lines: readonly ReadResultLine[];
  cases: readonly EvalCase[];
  /** The eval files loaded, named as `eval_file` names them. */
  evalFileNames: ReadonlySet<string>;
  /** Names an eval file as result lines do (`eval_file`). */
  evalFileName: (absolutePath: string) => string;
  targets: readonly ResolvedTarget[];
  targetsFile?: string;
  judgeTargetOverride?: string;
  providerRegistry: ProviderRegistry;
  evaluatorRegistry: EvaluatorRegistry;
  /** Cwd, the base folder of stand-in targets the targets file no longer defines. */
  cwd: string;
}

export const NO_TRACE_HINT = 're-run agentv eval with --include-trace to record answers and traces';

/**
 * Matches the recorded lines to the cases of the current eval files and plans
 * a run of the recorded targets, each replaced by a stand-in answered from
 * its recorded lines. Judge targets stay the real ones. Recorded cases that
 * cannot be graded (no longer in the eval files, errored, recorded without
 * `--include-trace`) and eval cases without a recorded line are returned, not dropped.
 */
export function planGrade(options: PlanGradeOptions): GradePlan {
  const byKey = new Map<string, EvalCase>();
  for (const evalCase of options.cases) {
    byKey.set(caseKey(options.evalFileName(evalCase.filePath), evalCase.id, ''), evalCase);
  }
  const ungraded: UngradedCase[] = [];
  const recorded = new Map<string, ResultRecord>();
  const answers: RecordedAnswers = new Map();
  const casesByTarget = new Map<string, EvalCase[]>();
  const recordedTargets: string[] = [];
  let otherFiles = 0;
  for (const { record, line } of options.lines) {
    const evalFile = record.eval_file ?? record.dataset;
    if (!recordedTargets.includes(record.target)) recordedTargets.push(record.target);
    const ref = { evalFile, evalId: record.eval_id, target: record.target, line };
    if (!options.evalFileNames.has(evalFile)) {
      otherFiles++;
      continue;
    }
    const evalCase = byKey.get(caseKey(evalFile, record.eval_id, ''));
    if (evalCase === undefined) {
      ungraded.push({ ...ref, reason: `case "${record.eval_id}" is no longer in ${evalFile}` });
      continue;
    }
    if (record.error !== undefined) {
      ungraded.push({
        ...ref,
        reason: `it errored in the recorded run, so there is no answer to grade (${firstLine(record.error)})`,
      });
      continue;
    }
    const stopped = record.turns?.at(-1);
    if (record.conversation_end === 'budget' && stopped?.error !== undefined) {
      ungraded.push({
        ...ref,
        reason: `its conversation was stopped over its budget during turn ${stopped.turn}, so that turn has no answer to grade (${firstLine(stopped.error)})`,
      });
      continue;
    }
    if (!('trace' in record)) {
      ungraded.push({
        ...ref,
        reason: `the line was written without --include-trace, so its trace and output messages are unknown (${NO_TRACE_HINT})`,
      });
      continue;
    }
    const key = caseKey(evalFile, record.eval_id, record.target);
    if (recorded.has(key)) {
      ungraded.push({
        ...ref,
        reason: 'the case and target are recorded twice; the first line is graded',
      });
      continue;
    }
    recorded.set(key, record);
    let byCase = answers.get(record.target);
    if (!byCase) {
      byCase = new Map();
      answers.set(record.target, byCase);
    }
    const replay = replayKey(evalCase);
    if (byCase.has(replay)) {
      ungraded.push({
        ...ref,
        reason: `another eval file in the same folder has a case "${record.eval_id}" of the same dataset; grade the two files separately`,
      });
      recorded.delete(key);
      continue;
    }
    byCase.set(replay, record);
    const list = casesByTarget.get(record.target);
    if (list) list.push(evalCase);
    else casesByTarget.set(record.target, [evalCase]);
  }

  const inFile = new Set(
    options.lines.map(({ record }) =>
      caseKey(record.eval_file ?? record.dataset, record.eval_id, record.target),
    ),
  );
  const unrecorded: UnrecordedCase[] = [];
  for (const evalCase of options.cases) {
    const evalFile = options.evalFileName(evalCase.filePath);
    for (const target of recordedTargets) {
      if (!inFile.has(caseKey(evalFile, evalCase.id, target))) {
        unrecorded.push({ evalFile, evalId: evalCase.id, target });
      }
    }
  }

  const standIns = standInTargets(options.targets, recordedTargets, options);
  const issues: Issue[] = [];
  const plan = planPerTarget(casesByTarget, { ...options, targets: standIns }, issues, (c) =>
    recordedSimulator(realJudge(c, options, issues)),
  );
  return {
    plan,
    answers,
    recorded,
    ungraded,
    unrecorded,
    otherFiles,
    issues: uniqueIssues(issues),
  };
}

/** The targets file's targets with the recorded ones replaced by replay stand-ins. */
function standInTargets(
  targets: readonly ResolvedTarget[],
  recordedTargets: readonly string[],
  options: PlanGradeOptions,
): ResolvedTarget[] {
  const standIn = (name: string, defined?: ResolvedTarget): ResolvedTarget => ({
    name,
    provider: REPLAY_PROVIDER_KIND,
    settings: {},
    ...(defined?.workers === undefined ? {} : { workers: defined.workers }),
    ...(defined?.judgeTarget === undefined ? {} : { judgeTarget: defined.judgeTarget }),
    ...(defined?.line === undefined ? {} : { line: defined.line }),
    filePath: defined?.filePath ?? options.targetsFile ?? options.cwd,
    baseDir: defined?.baseDir ?? options.cwd,
  });
  const list = targets.map((target) =>
    recordedTargets.includes(target.name) ? standIn(target.name, target) : target,
  );
  for (const name of recordedTargets) {
    if (!targets.some((target) => target.name === name)) list.push(standIn(name));
  }
  return list;
}

/**
 * A conversation's simulated user replays its recorded messages: it is answered by the
 * case's own stand-in, which holds the recorded conversation, and never called.
 */
function recordedSimulator(planned: PlannedCase): PlannedCase {
  if (planned.evalCase.conversation?.simulatedUser === undefined) return planned;
  return { ...planned, simulatorTarget: planned.target };
}

/** A judge target that is also a recorded target is asked for real, not replayed. */
function realJudge(planned: PlannedCase, options: PlanGradeOptions, issues: Issue[]): PlannedCase {
  const judge = planned.judgeTarget;
  if (judge?.provider !== REPLAY_PROVIDER_KIND) return planned;
  const real = options.targets.find((target) => target.name === judge.name);
  if (real === undefined) {
    issues.push({
      severity: 'error',
      file: planned.evalCase.filePath,
      caseId: planned.evalCase.id,
      message: `judge target "${judge.name}" is not defined in the targets file`,
      hint: 'define it in .agentv/targets.yaml or pass --judge-target NAME',
    });
    return planned;
  }
  for (const issue of checkTarget(real, options.providerRegistry, RUN_TARGET_POLICY)) {
    issues.push({
      ...issue,
      file: real.filePath,
      ...(real.line === undefined ? {} : { line: real.line }),
    });
  }
  return { ...planned, judgeTarget: real };
}

// Errors keep stderr on one line (up to ~2 KB): a warning shows its start, as progress lines do.
function firstLine(text: string, max = 160): string {
  const first = text.split('\n')[0]!;
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}
