import type { EvalCase, EvaluatorRegistry, Issue, ProviderRegistry, RunPlan } from '@agentv/core';
import { uniqueIssues } from '@agentv/core/internal';
import type { ResolvedTarget } from '@agentv/core/provider-utils';
import { planPerTarget } from './plan-per-target.js';
import { REPLAY_PROVIDER_KIND } from './replay-provider.js';

export interface SessionGradePlan {
  plan: RunPlan;
  /** Cases of the eval files that name no recorded session (`trace:`): not graded. */
  withoutSession: EvalCase[];
  issues: Issue[];
}

/**
 * `agentv grade EVAL_FILES`: the cases that name a recorded session (`trace: { source, path }`),
 * each planned against a stand-in target named after its source (`codex-session`,
 * `claude-session`, `otlp-file`) that is never called: the run answers such a case from its
 * file. Judges are the targets file's, as for `agentv eval`.
 */
export function planSessionGrade(options: {
  cases: readonly EvalCase[];
  targets: readonly ResolvedTarget[];
  targetsFile?: string;
  judgeTargetOverride?: string;
  providerRegistry: ProviderRegistry;
  evaluatorRegistry: EvaluatorRegistry;
  cwd: string;
}): SessionGradePlan {
  const bySource = new Map<string, EvalCase[]>();
  const withoutSession: EvalCase[] = [];
  for (const evalCase of options.cases) {
    const source = evalCase.recordedTrace?.source;
    if (source === undefined) {
      withoutSession.push(evalCase);
      continue;
    }
    const list = bySource.get(source);
    if (list) list.push(evalCase);
    else bySource.set(source, [evalCase]);
  }
  const standIns: ResolvedTarget[] = [...bySource.keys()].map((name) => ({
    name,
    provider: REPLAY_PROVIDER_KIND,
    settings: {},
    filePath: options.targetsFile ?? options.cwd,
    baseDir: options.cwd,
  }));
  const targets = [...options.targets.filter((target) => !bySource.has(target.name)), ...standIns];
  const issues: Issue[] = [];
  const plan = planPerTarget(bySource, { ...options, targets }, issues);
  return { plan, withoutSession, issues: uniqueIssues(issues) };
}
