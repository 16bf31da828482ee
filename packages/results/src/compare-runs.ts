/** One case of a run as `compareRuns` reads it (a result line's identity and verdict). */
export interface ComparableResult {
  /** The eval file as the result line names it (`eval_file`, else `dataset`). */
  evalFile: string;
  evalId: string;
  target: string;
  score: number;
  passed: boolean;
  /** Set when the case errored; it then counts as failed with its recorded score (0). */
  error?: string;
}

export interface CompareOptions {
  /** Match cases by target too (both sides hold the same targets). Default false: by eval file and id. */
  matchTarget?: boolean;
  /** Seed of the paired bootstrap. Default `DEFAULT_BOOTSTRAP_SEED`. */
  seed?: number;
  /** Resamples of the paired bootstrap. Default `DEFAULT_BOOTSTRAP_RESAMPLES`. */
  resamples?: number;
}

/** How one case moved between the two runs. */
export type CaseChange = 'regressed' | 'fixed' | 'still_passing' | 'still_failing';

/** `win`: the new score is higher; `loss`: lower; `tie`: |Δ| < `TIE_TOLERANCE`. */
export type CaseOutcome = 'win' | 'loss' | 'tie';

export interface CaseComparison {
  evalFile: string;
  evalId: string;
  baseTarget: string;
  newTarget: string;
  baseScore: number;
  newScore: number;
  /** `newScore - baseScore`. */
  delta: number;
  basePassed: boolean;
  newPassed: boolean;
  outcome: CaseOutcome;
  change: CaseChange;
  baseError?: string;
  newError?: string;
}

/** A case found on one side only. */
export interface UnmatchedCase {
  evalFile: string;
  evalId: string;
  target: string;
}

/** McNemar's test on the paired pass/fail verdicts. */
export interface McNemarTest {
  /** Discordant pairs: passed in base, failed in new (regressions). */
  b: number;
  /** Discordant pairs: failed in base, passed in new (fixes). */
  c: number;
  /** `exact` (two-sided binomial, when b + c < `MCNEMAR_EXACT_BELOW`) or `chi_square` (continuity-corrected, 1 df). */
  method: 'exact' | 'chi_square';
  /** The chi-square statistic (|b - c| - 1)² / (b + c); only for `chi_square`. */
  statistic?: number;
  /** Two-sided p-value; 1 when there is no discordant pair. */
  pValue: number;
}

/** A mean of the paired cases on each side, its change and the change's 95% bootstrap interval. */
export interface PairedChange {
  base: number;
  new: number;
  delta: number;
  /** 95% percentile interval of `delta` over the bootstrap resamples. */
  ci95: [number, number];
}

export interface RunComparison {
  /** Matched cases: regressions first (largest drop first), then the rest by score change, largest drop first. */
  cases: CaseComparison[];
  onlyInBase: UnmatchedCase[];
  onlyInNew: UnmatchedCase[];
  wins: number;
  losses: number;
  ties: number;
  /** Cases that passed in base and fail in new. */
  regressions: number;
  /** Cases that failed in base and pass in new. */
  fixes: number;
  /** Pass rate (0..1) of the matched cases. */
  passRate: PairedChange;
  /** Mean score (0..1) of the matched cases. */
  meanScore: PairedChange;
  mcnemar: McNemarTest;
  bootstrap: { resamples: number; seed: number };
}

/** Scores closer than this are a tie. */
export const TIE_TOLERANCE = 1e-9;
export const DEFAULT_BOOTSTRAP_RESAMPLES = 10_000;
export const DEFAULT_BOOTSTRAP_SEED = 1;
/** Below this many discordant pairs McNemar's test is the exact binomial one. */
export const MCNEMAR_EXACT_BELOW = 25;

/**
 * Compares two runs case by case. Cases are matched by (eval file, case id),
 * and by target too with `matchTarget`; each side must hold a key once.
 * Errored cases count as failed with their recorded score.
 */
export function compareRuns(
  base: readonly ComparableResult[],
  next: readonly ComparableResult[],
  options: CompareOptions = {},
): RunComparison {
  const keyOf = (result: ComparableResult) =>
    JSON.stringify(
      options.matchTarget
        ? [result.evalFile, result.evalId, result.target]
        : [result.evalFile, result.evalId],
    );
  const newByKey = new Map<string, ComparableResult>();
  for (const result of next) {
    const key = keyOf(result);
    if (newByKey.has(key)) throw new Error(`case ${key} is twice in the new run`);
    newByKey.set(key, result);
  }
  const seen = new Set<string>();
  const cases: CaseComparison[] = [];
  const onlyInBase: UnmatchedCase[] = [];
  for (const before of base) {
    const key = keyOf(before);
    if (seen.has(key)) throw new Error(`case ${key} is twice in the base run`);
    seen.add(key);
    const after = newByKey.get(key);
    if (after === undefined) onlyInBase.push(unmatched(before));
    else cases.push(compareCase(before, after));
  }
  const onlyInNew = next.filter((result) => !seen.has(keyOf(result))).map(unmatched);
  cases.sort(byConcern);

  const count = (test: (c: CaseComparison) => boolean) => cases.filter(test).length;
  const regressions = count((c) => c.change === 'regressed');
  const fixes = count((c) => c.change === 'fixed');
  const resamples = options.resamples ?? DEFAULT_BOOTSTRAP_RESAMPLES;
  const seed = options.seed ?? DEFAULT_BOOTSTRAP_SEED;
  const intervals = pairedBootstrap(
    [
      cases.map((c) => [Number(c.basePassed), Number(c.newPassed)]),
      cases.map((c) => [c.baseScore, c.newScore]),
    ],
    resamples,
    seed,
  );
  return {
    cases,
    onlyInBase,
    onlyInNew,
    wins: count((c) => c.outcome === 'win'),
    losses: count((c) => c.outcome === 'loss'),
    ties: count((c) => c.outcome === 'tie'),
    regressions,
    fixes,
    passRate: pairedChange(
      cases.map((c) => Number(c.basePassed)),
      cases.map((c) => Number(c.newPassed)),
      intervals[0]!,
    ),
    meanScore: pairedChange(
      cases.map((c) => c.baseScore),
      cases.map((c) => c.newScore),
      intervals[1]!,
    ),
    mcnemar: mcnemarTest(regressions, fixes),
    bootstrap: { resamples, seed },
  };
}

/**
 * McNemar's test for discordant counts b and c. With b + c < 25 the exact
 * two-sided binomial test: p = min(1, 2 · Σ_{k=0}^{min(b,c)} C(b+c, k) / 2^(b+c));
 * else the continuity-corrected chi-square (|b − c| − 1)² / (b + c) with one
 * degree of freedom. No discordant pair gives p = 1.
 */
export function mcnemarTest(b: number, c: number): McNemarTest {
  const n = b + c;
  if (n === 0) return { b, c, method: 'exact', pValue: 1 };
  if (n < MCNEMAR_EXACT_BELOW) {
    let tail = 0;
    let coefficient = 1; // C(n, 0)
    for (let k = 0; k <= Math.min(b, c); k++) {
      tail += coefficient;
      coefficient = (coefficient * (n - k)) / (k + 1);
    }
    return { b, c, method: 'exact', pValue: Math.min(1, (2 * tail) / 2 ** n) };
  }
  const statistic = (Math.abs(b - c) - 1) ** 2 / n;
  // The chi-square (1 df) survival function: P(X > x) = erfc(√(x / 2)).
  return { b, c, method: 'chi_square', statistic, pValue: erfc(Math.sqrt(statistic / 2)) };
}

/**
 * 95% percentile intervals of the mean paired difference (new − base) of each
 * series, from the same `resamples` resamples of the case indices (drawn with
 * replacement by a mulberry32 generator seeded with `seed`). The interval is
 * [d(⌊0.025·R⌋), d(⌈0.975·R⌉ − 1)] of the sorted resampled differences d.
 */
export function pairedBootstrap(
  series: readonly (readonly (readonly [number, number])[])[],
  resamples: number,
  seed: number,
): [number, number][] {
  const n = series[0]?.length ?? 0;
  if (n === 0) return series.map(() => [0, 0]);
  const differences = series.map((pairs) => pairs.map(([before, after]) => after - before));
  const sums = series.map(() => new Float64Array(resamples));
  const random = mulberry32(seed);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < n; i++) {
      const index = Math.floor(random() * n);
      for (let s = 0; s < differences.length; s++) sums[s]![r]! += differences[s]![index]!;
    }
  }
  return sums.map((values) => {
    const means = values.map((sum) => sum / n).sort();
    return [
      means[Math.floor(0.025 * resamples)]!,
      means[Math.min(resamples - 1, Math.ceil(0.975 * resamples) - 1)]!,
    ];
  });
}

/** A deterministic 32-bit generator of floats in [0, 1). */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The complementary error function: erf's Taylor series below 2, a continued fraction from 2 on. */
function erfc(x: number): number {
  if (x < 0) return 2 - erfc(-x);
  if (x < 2) {
    // erf(x) = 2/√π · Σ (-1)^k x^(2k+1) / (k! (2k+1)), converges fast for small x.
    let sum = 0;
    let term = x;
    for (let k = 0; k < 100; k++) {
      const piece = term / (2 * k + 1);
      sum += piece;
      if (Math.abs(piece) < 1e-17 * Math.abs(sum)) break;
      term *= (-x * x) / (k + 1);
    }
    return 1 - (2 / Math.sqrt(Math.PI)) * sum;
  }
  // Continued fraction erfc(x) = e^(-x²)/√π · 1/(x + 1/2/(x + 1/(x + 3/2/(x + …)))), evaluated bottom-up.
  let fraction = 0;
  for (let k = 60; k >= 1; k--) fraction = k / 2 / (x + fraction);
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / (x + fraction);
}

function compareCase(before: ComparableResult, after: ComparableResult): CaseComparison {
  const delta = after.score - before.score;
  const outcome: CaseOutcome = Math.abs(delta) < TIE_TOLERANCE ? 'tie' : delta > 0 ? 'win' : 'loss';
  const change: CaseChange = before.passed
    ? after.passed
      ? 'still_passing'
      : 'regressed'
    : after.passed
      ? 'fixed'
      : 'still_failing';
  return {
    evalFile: before.evalFile,
    evalId: before.evalId,
    baseTarget: before.target,
    newTarget: after.target,
    baseScore: before.score,
    newScore: after.score,
    delta: outcome === 'tie' ? 0 : delta,
    basePassed: before.passed,
    newPassed: after.passed,
    outcome,
    change,
    ...(before.error === undefined ? {} : { baseError: before.error }),
    ...(after.error === undefined ? {} : { newError: after.error }),
  };
}

function byConcern(a: CaseComparison, b: CaseComparison): number {
  const regressedFirst = Number(b.change === 'regressed') - Number(a.change === 'regressed');
  if (regressedFirst !== 0) return regressedFirst;
  // Deltas within the tie tolerance (0.7 - 0.3 vs 0.9 - 0.5) sort by case, not by rounding noise.
  if (Math.abs(a.delta - b.delta) >= TIE_TOLERANCE) return a.delta - b.delta;
  return a.evalFile === b.evalFile
    ? a.evalId.localeCompare(b.evalId)
    : a.evalFile.localeCompare(b.evalFile);
}

function pairedChange(
  before: readonly number[],
  after: readonly number[],
  ci95: [number, number],
): PairedChange {
  const base = mean(before);
  const next = mean(after);
  return { base, new: next, delta: next - base, ci95 };
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

function unmatched(result: ComparableResult): UnmatchedCase {
  return { evalFile: result.evalFile, evalId: result.evalId, target: result.target };
}
