import type { PlannedCase, RunPlan } from '@agentv/core';
import type { RunRecord } from '@agentv/results';
import { runIdOf, type Shard, shardOf } from './shard.js';

/**
 * The run a full plan makes (its id from every selected case, so every shard of it
 * names the same run) and the part of the plan `shard` runs: the whole plan without one.
 */
export function shardPlan(
  fullPlan: RunPlan,
  shard: Shard | undefined,
  keyOf: (planned: PlannedCase) => string,
  evalFileName: (absolutePath: string) => string,
): { run: RunRecord; plan: RunPlan } {
  const run: RunRecord = {
    id: runIdOf(fullPlan.cases.map(keyOf)),
    cases: fullPlan.cases.length,
    ...(shard === undefined ? {} : { shard: `${shard.index}/${shard.count}` }),
  };
  if (shard === undefined) return { run, plan: fullPlan };
  const cases = fullPlan.cases.filter(
    (c) => shardOf(evalFileName(c.evalCase.filePath), c.evalCase.id, shard.count) === shard.index,
  );
  return { run, plan: { ...fullPlan, cases } };
}
