import type { RunPlan } from '@agentv/core';
import { displayPath } from '@agentv/core/internal';
import { type RunRecord, terminalText } from '@agentv/results';
import type { Shard } from './shard.js';

/** `--list`: prints the selected cases (file, id, target, tags) and their count. */
export function listCases(
  plan: RunPlan,
  run: RunRecord,
  shard: Shard | undefined,
  cwd: string,
): void {
  for (const c of plan.cases) {
    const tags = c.evalCase.tags?.length ? `  [${c.evalCase.tags.join(', ')}]` : '';
    process.stdout.write(
      `${terminalText(`${displayPath(cwd, c.evalCase.filePath)}  ${c.evalCase.id}  ${c.target.name}${tags}`)}\n`,
    );
  }
  const of = shard === undefined ? '' : ` (shard ${run.shard} of ${run.cases})`;
  process.stdout.write(`${plan.cases.length} case(s) selected${of}\n`);
}
