/**
 * An evaluator as configured in an eval file. `type` selects the
 * implementation; other keys are that evaluator's options (snake_case, as written).
 */
export interface EvaluatorConfig {
  name: string;
  type: string;
  /** Default 1; 0 excludes the evaluator from the case score. */
  weight?: number;
  /** Grade the opposite (a check that must not hold): score 1 - s, hits and misses swapped. */
  negate?: boolean;
  /** A named metric its score is reported under (per case and as a mean over the run). */
  metric?: string;
  /**
   * A grader the case cannot pass without: `true` (its bar is the case's
   * threshold, else its own pass) or a score in (0, 1] (its bar, and its pass mark).
   * Under its bar the case fails with score 0.
   */
  required?: boolean | number;
  [option: string]: unknown;
}
