import type { EvalCase, PlannedCase } from '@agentv/core';
import { UsageError } from '@agentv/core/internal';
import type { RepeatReducer } from './reduce-repeats.js';

/** How often a run repeats its cases and how it reduces them. */
export interface RepeatChoice {
  count: number;
  reducer: RepeatReducer;
}

/**
 * The run's repeats: `--repeat` / `--repeat-reducer` when `--repeat` is
 * given, else the eval files' `execution.repeat` (AgentV 4.x's `trials`),
 * which must then be the same for every case of the run, since a run
 * repeats all its cases together (`cases`: the run's plan). `flags.count`
 * undefined: no `--repeat`.
 */
export function chooseRepeat(
  flags: { count: number | undefined; reducer: RepeatReducer; reducerGiven: boolean },
  cases: readonly PlannedCase[],
): RepeatChoice {
  if (flags.count !== undefined) return { count: flags.count, reducer: flags.reducer };
  const asked = new Map<string, { repeat: EvalCase['repeat']; files: Set<string> }>();
  let last: EvalCase | undefined;
  // Indexed: it runs for every case, a for-of loop allocates an iterator result per step.
  for (let index = 0; index < cases.length; index++) {
    const { evalCase } = cases[index]!;
    // The cases of a file share its setting (one object): each run of them is counted once.
    if (evalCase.repeat === last?.repeat && evalCase.filePath === last?.filePath) continue;
    last = evalCase;
    const key = evalCase.repeat ? `${evalCase.repeat.count}/${evalCase.repeat.reducer}` : 'once';
    const entry = asked.get(key) ?? { repeat: evalCase.repeat, files: new Set<string>() };
    entry.files.add(evalCase.filePath);
    asked.set(key, entry);
  }
  if (asked.size === 0) return { count: 1, reducer: flags.reducer };
  if (asked.size > 1) {
    const kinds = [...asked.values()].map(
      ({ repeat, files }) =>
        `${repeat ? `${repeat.count} trials (${repeat.reducer})` : 'once'}: ${[...files].join(', ')}`,
    );
    throw new UsageError(
      `the eval files of this run ask for different trials (${kinds.join('; ')})`,
      {
        hint: 'run those files separately, or give every case the same count with --repeat N',
      },
    );
  }
  const repeat = [...asked.values()][0]?.repeat;
  if (repeat === undefined) return { count: 1, reducer: flags.reducer };
  return { count: repeat.count, reducer: flags.reducerGiven ? flags.reducer : repeat.reducer };
}
