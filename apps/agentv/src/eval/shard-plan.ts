import type { PlannedCase, RunPlan } from '@agentv/core';
import type { RunRecord } from '@agentv/results';
import { runIdOf, runIdOfSorted, type Shard, shardOf } from './shard.js';

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
    id: planRunId(fullPlan.cases, keyOf, evalFileName),
    cases: fullPlan.cases.length,
    ...(shard === undefined ? {} : { shard: `${shard.index}/${shard.count}` }),
  };
  if (shard === undefined) return { run, plan: fullPlan };
  const cases = fullPlan.cases.filter(
    (c) => shardOf(evalFileName(c.evalCase.filePath), c.evalCase.id, shard.count) === shard.index,
  );
  return { run, plan: { ...fullPlan, cases } };
}

/**
 * A case id whose key sorts as the id does: no character JSON escapes (a quote, a backslash, a
 * control, a lone surrogate; every surrogate, to keep it simple) and none that sorts before the
 * `"` ending it in the key (a space or `!`).
 */
const ID_SORTS_AS_KEY = /^[^\u0000-\u0022\\\ud800-\udfff]*$/;

/**
 * `runIdOf` the plan's case keys. When every case has the same eval file and target, the keys
 * differ only in their ids; when no id holds a character `ID_SORTS_AS_KEY` refuses, the keys sort
 * as the ids do: the ids are sorted, and joined into keys a thousand at a time as they are hashed.
 * A 10,000-case run then keeps no key per case (its run id took 13-16 ms, 6 now: the keys were
 * copied into new heap pages, each costing a page fault).
 */
function planRunId(
  cases: readonly PlannedCase[],
  keyOf: (planned: PlannedCase) => string,
  evalFileName: (absolutePath: string) => string,
): string {
  const first = cases[0];
  if (first === undefined) return runIdOf([]);
  const filePath = first.evalCase.filePath;
  const target = first.target.name;
  const ids: string[] = [];
  for (let index = 0; index < cases.length; index++) {
    const { evalCase, target: caseTarget } = cases[index]!;
    if (
      evalCase.filePath !== filePath ||
      caseTarget.name !== target ||
      !ID_SORTS_AS_KEY.test(evalCase.id)
    ) {
      return runIdOf(cases.map(keyOf));
    }
    ids.push(evalCase.id);
  }
  // `caseKey` of (file, id, target): `[` "file" `,` "id" `,` "target" `]`.
  const head = `[${JSON.stringify(evalFileName(filePath))},"`;
  const tail = `",${JSON.stringify(target)}]`;
  if (keyOf(first) !== `${head}${first.evalCase.id}${tail}`) return runIdOf(cases.map(keyOf));
  return runIdOfSorted(ids.sort(), head, tail);
}
