import type { EvalCase, RunPlan } from '@agentv/core';
import { UsageError } from '@agentv/core/internal';
import { filterCasesById, filterCasesByTags } from './case-filter.js';

/** `--eval-id`, `--filter`, `--tag` and `--exclude-tag`, each as often as given. */
export interface SelectionFlags {
  idPatterns: string[];
  filterPatterns: string[];
  includeTags: string[];
  excludeTags: string[];
}

/** The cases the flags select, and what each filter left, to name the one that left none. */
export interface CaseSelection {
  all: readonly EvalCase[];
  byId: readonly EvalCase[];
  byFilter: readonly EvalCase[];
  cases: EvalCase[];
}

/** Applies `--eval-id`, then `--filter`, then the tags to the loaded cases. */
export function selectCases(all: readonly EvalCase[], flags: SelectionFlags): CaseSelection {
  // Without a flag a step keeps the list it was given: a copy per step is one more array of
  // every case, for the whole run.
  const byId = flags.idPatterns.length === 0 ? all : filterCasesById(all, flags.idPatterns);
  const byFilter =
    flags.filterPatterns.length === 0 ? byId : filterCasesById(byId, flags.filterPatterns);
  const cases = filterCasesByTags(byFilter, flags.includeTags, flags.excludeTags);
  return { all, byId, byFilter, cases };
}

/**
 * Throws a usage error naming the flag when a filter left no case of `plan`. Called once
 * the plan's issues are reported: a file's errors come before a filter that matched nothing.
 */
export function checkSelection(
  { all, byId, byFilter }: CaseSelection,
  plan: RunPlan,
  flags: SelectionFlags,
): void {
  if (all.length === 0) return;
  const someIds = () =>
    `ids in these files include: ${all
      .slice(0, 5)
      .map((c) => c.id)
      .join(', ')}`;
  if (flags.idPatterns.length > 0 && byId.length === 0) {
    throw new UsageError(`no case id matches --eval-id ${flags.idPatterns.join(', ')}`, {
      hint: someIds(),
    });
  }
  if (flags.filterPatterns.length > 0 && byFilter.length === 0) {
    const also = flags.idPatterns.length > 0 ? ` among the cases --eval-id selected` : '';
    throw new UsageError(`no case id matches --filter ${flags.filterPatterns.join(', ')}${also}`, {
      hint: someIds(),
    });
  }
  if (flags.includeTags.length + flags.excludeTags.length > 0 && plan.cases.length === 0) {
    const known = [...new Set(all.flatMap((c) => c.tags ?? []))];
    throw new UsageError(
      `no case is left after ${[
        ...flags.includeTags.map((tag) => `--tag ${tag}`),
        ...flags.excludeTags.map((tag) => `--exclude-tag ${tag}`),
      ].join(' ')}`,
      {
        hint:
          known.length > 0
            ? `tags in these files: ${known.slice(0, 10).join(', ')}`
            : 'no case has tags; add `tags: [smoke]` to a case or to the eval file',
      },
    );
  }
}
