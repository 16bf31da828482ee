import {
  type EvalCase,
  type EvaluatorRegistry,
  type Issue,
  type PlannedCase,
  type ProviderRegistry,
  planRun,
  type RunPlan,
} from '@agentv/core';
import { CLI_OPTION_NAMES } from '@agentv/core/internal';
import type { ResolvedTarget } from '@agentv/core/provider-utils';

/** What `planPerTarget` needs besides the cases: the targets and the run's registries. */
export interface PlanPerTargetOptions {
  targets: readonly ResolvedTarget[];
  targetsFile?: string;
  judgeTargetOverride?: string;
  providerRegistry: ProviderRegistry;
  evaluatorRegistry: EvaluatorRegistry;
}

/**
 * One plan for `agentv grade`: each group of cases planned against the target it is keyed by
 * (a replay stand-in), `mapCase` applied to each planned case; the groups' issues are appended
 * to `issues`.
 */
export function planPerTarget(
  groups: ReadonlyMap<string, readonly EvalCase[]>,
  options: PlanPerTargetOptions,
  issues: Issue[],
  mapCase: (planned: PlannedCase) => PlannedCase = (planned) => planned,
): RunPlan {
  const plan: RunPlan = { cases: [], targets: [] };
  for (const [target, cases] of groups) {
    const planned = planRun({
      cases,
      targets: options.targets,
      ...(options.targetsFile === undefined ? {} : { targetsFile: options.targetsFile }),
      targetOverride: target,
      optionNames: CLI_OPTION_NAMES,
      ...(options.judgeTargetOverride === undefined
        ? {}
        : { judgeTargetOverride: options.judgeTargetOverride }),
      providerRegistry: options.providerRegistry,
      evaluatorRegistry: options.evaluatorRegistry,
    });
    plan.cases.push(...planned.plan.cases.map(mapCase));
    plan.targets.push(...planned.plan.targets);
    issues.push(...planned.issues);
  }
  return plan;
}
