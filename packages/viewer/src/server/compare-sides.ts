import { compareRuns } from '@agentv/results';
import type { CompareResponse } from '../shared/api-types.js';
import type { ResultFileIndex } from './result-file-index.js';

/** One side of a comparison: a run, narrowed to one of its targets when `target` is set. */
export interface CompareSide {
  index: ResultFileIndex;
  target: string | null;
}

/**
 * Compares two runs (or two targets of one run) with `agentv compare`'s
 * statistics (`compareRuns`: paired bootstrap, McNemar). Sides holding the same
 * targets are matched per target; otherwise by eval file and case id, as the
 * command does. Throws an Error saying why when the sides cannot be compared.
 */
export function compareSides(base: CompareSide, next: CompareSide): CompareResponse {
  const left = base.index.comparable(base.target);
  const right = next.index.comparable(next.target);
  const leftTargets = new Set(left.map((c) => c.target));
  const rightTargets = new Set(right.map((c) => c.target));
  const sameTargets =
    leftTargets.size === rightTargets.size && [...leftTargets].every((t) => rightTargets.has(t));
  if (!sameTargets && (leftTargets.size > 1 || rightTargets.size > 1)) {
    throw new Error(
      `the sides hold different targets (${[...leftTargets].join(', ')} and ${[...rightTargets].join(', ')}): pick one target per side`,
    );
  }
  const comparison = compareRuns(left, right, { matchTarget: sameTargets });
  const lineOf = (cases: typeof left) => {
    const lines = new Map<string, number>();
    for (const c of cases)
      lines.set(`${c.evalFile}\0${c.evalId}\0${sameTargets ? c.target : ''}`, c.line);
    return lines;
  };
  const leftLines = lineOf(left);
  const rightLines = lineOf(right);
  return {
    base: { run: base.index.key, target: base.target },
    next: { run: next.index.key, target: next.target },
    wins: comparison.wins,
    losses: comparison.losses,
    ties: comparison.ties,
    regressions: comparison.regressions,
    fixes: comparison.fixes,
    passRate: comparison.passRate,
    meanScore: comparison.meanScore,
    mcnemar: comparison.mcnemar,
    bootstrap: comparison.bootstrap,
    cases: comparison.cases.map((c) => ({
      evalFile: c.evalFile,
      evalId: c.evalId,
      baseScore: c.baseScore,
      newScore: c.newScore,
      delta: c.delta,
      basePassed: c.basePassed,
      newPassed: c.newPassed,
      change: c.change,
      outcome: c.outcome,
      baseLine:
        leftLines.get(`${c.evalFile}\0${c.evalId}\0${sameTargets ? c.baseTarget : ''}`) ?? null,
      newLine:
        rightLines.get(`${c.evalFile}\0${c.evalId}\0${sameTargets ? c.newTarget : ''}`) ?? null,
    })),
    onlyInBase: comparison.onlyInBase,
    onlyInNew: comparison.onlyInNew,
  };
}
