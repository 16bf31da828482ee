import type { Issue } from '../errors/input-issue.js';
import type { EvalCase } from '../eval-file/eval-case.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';

/** What the simulated user answers in a dry run (and when targets are not checked). */
export const DRY_RUN_SIMULATOR_REPLY = JSON.stringify({ stop: 'goal_reached' });

/** Every grader of a case: the conversation's, then each scripted turn's. */
export function allEvaluatorsOf(evalCase: EvalCase): EvaluatorConfig[] {
  const turns = evalCase.conversation?.turns;
  if (turns === undefined || turns.every((turn) => turn.evaluators.length === 0)) {
    return evalCase.evaluators;
  }
  return [...evalCase.evaluators, ...turns.flatMap((turn) => turn.evaluators)];
}

/** True when some scripted turn of the case has graders of its own. */
export function hasTurnGraders(evalCase: EvalCase): boolean {
  return evalCase.conversation?.turns.some((turn) => turn.evaluators.length > 0) === true;
}

/** Each scripted turn's graders as a case of their own, for the planner's checks of graders. */
export function turnsAsCases(evalCase: EvalCase): EvalCase[] {
  return (evalCase.conversation?.turns ?? [])
    .filter((turn) => turn.evaluators.length > 0)
    .map((turn) => {
      const asCase: EvalCase = { ...evalCase, evaluators: turn.evaluators };
      if (turn.evaluatorPositions !== undefined) {
        asCase.evaluatorPositions = turn.evaluatorPositions;
      } else {
        delete asCase.evaluatorPositions;
      }
      if (turn.expectedOutcome !== undefined) asCase.expectedOutcome = turn.expectedOutcome;
      return asCase;
    });
}

/** How `planSimulator` finds a target by name, as the planner does for the case's own. */
export interface SimulatorLookup {
  /** The target as defined (inline in the eval file first, then the targets file). */
  defined: ResolvedTarget | undefined;
  /** Targets are not checked (dry run, no usable targets file): stand in for it. */
  mocked: boolean;
  /** A stand-in for the target under `mocked`. */
  mock(): ResolvedTarget;
  /** Problems with a defined target's settings (checked once per target). */
  check(target: ResolvedTarget): Issue[];
  /** The names one may use instead, for the hint. */
  available: readonly string[];
}

/**
 * The target playing the simulated user of `evalCase`, or an issue at
 * `simulated_user.target` when it does not exist.
 */
export function planSimulator(
  evalCase: EvalCase,
  lookup: SimulatorLookup,
): { target?: ResolvedTarget; issues: Issue[] } {
  const simulated = evalCase.conversation?.simulatedUser;
  if (simulated === undefined) return { issues: [] };
  if (lookup.mocked) {
    return {
      target: { ...lookup.mock(), settings: { response: DRY_RUN_SIMULATOR_REPLY } },
      issues: [],
    };
  }
  if (lookup.defined !== undefined) {
    return { target: lookup.defined, issues: lookup.check(lookup.defined) };
  }
  const issue: Issue = {
    severity: 'error',
    file: evalCase.filePath,
    caseId: evalCase.id,
    ...(evalCase.line === undefined ? {} : { line: evalCase.line, column: evalCase.column ?? 1 }),
    ...evalCase.targetPositions?.simulated_user,
    message: `simulated_user.target "${simulated.target}" does not exist`,
    hint:
      lookup.available.length > 0
        ? `name an LLM target that plays the user, one of: ${lookup.available.join(', ')}`
        : 'define an LLM target for the simulated user in .agentv/targets.yaml',
  };
  return { issues: [issue] };
}
