import type { EvalCase } from '../eval-file/eval-case.js';

/** The target a case runs against, when no flag, case or file names one. */
export const DEFAULT_TARGET_NAME = 'default';

/**
 * The targets a case runs against, each once: `--target` (one or several),
 * else the case's `execution.target(s)`, else the file's, else `default`.
 */
export function targetNamesOf(
  evalCase: EvalCase,
  targetOverride?: string | readonly string[],
): string[] {
  const override = typeof targetOverride === 'string' ? [targetOverride] : targetOverride;
  if (override !== undefined && override.length > 0) return [...new Set(override)];
  if (evalCase.targets !== undefined && evalCase.targets.length > 0) {
    return [...new Set(evalCase.targets)];
  }
  return [evalCase.target ?? DEFAULT_TARGET_NAME];
}
