import type { Verdict } from './evaluator.js';

/** Lowest score with verdict `pass`. */
export const PASS_SCORE = 0.8;
/** Lowest score with verdict `borderline`. */
export const BORDERLINE_SCORE = 0.6;

// Weighted means such as (0.7 + 0.9) / 2 can land a hair below a boundary.
const EPSILON = 1e-9;

/** Whether `score` reaches `mark`, tolerating floating-point noise just below it. */
export function reaches(score: number, mark: number): boolean {
  return score >= mark - EPSILON;
}

/** Verdict of a score: `pass` >= 0.8, `borderline` >= 0.6, else `fail`. */
export function verdictFor(score: number): Verdict {
  if (reaches(score, PASS_SCORE)) return 'pass';
  if (reaches(score, BORDERLINE_SCORE)) return 'borderline';
  return 'fail';
}
