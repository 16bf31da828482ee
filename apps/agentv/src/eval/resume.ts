import type { EvalCase, EvaluationResult } from '@agentv/core';
import { UsageError } from '@agentv/core/internal';
import type { NotRunCase } from '@agentv/results';
import { caseKey } from './shard.js';

/** What an earlier, interrupted part of a run left in its result file. */
export interface ResumeState {
  /** Whether the file existed (else the run starts afresh there). */
  existed: boolean;
  /** Keys (see `caseKey`) of the cases kept from the file: they are not run again. */
  done: ReadonlySet<string>;
  /** Keys of the cases whose line held an error; those lines were removed from the file. */
  errored: ReadonlySet<string>;
  /** The kept lines as results, for the summary and the reports of the whole run. */
  previous: EvaluationResult[];
}

/**
 * The cases `--resume` still runs: those not done, or with `--retry-errors`
 * only those whose earlier line held an error.
 */
export function casesToResume<T>(
  cases: readonly T[],
  state: ResumeState,
  retryErrorsOnly: boolean,
  keyOf: (c: T) => string,
): T[] {
  return cases.filter((c) => {
    const key = keyOf(c);
    return retryErrorsOnly ? state.errored.has(key) : !state.done.has(key);
  });
}

/** Checks `--resume` / `--retry-errors` / `--out` together. */
export function checkResumeFlags(
  resume: string | undefined,
  retryErrors: boolean,
  out: string | undefined,
): void {
  if (retryErrors && resume === undefined) {
    throw new UsageError('--retry-errors needs --resume PATH', {
      hint: 'pass the result file whose errored cases should run again: --resume PATH --retry-errors',
    });
  }
  if (resume !== undefined && out !== undefined) {
    throw new UsageError('--resume and --out cannot be used together', {
      hint: '--resume PATH appends to PATH; leave out --out',
    });
  }
}

/** The planned cases with no result among `finished`: what an interrupted run left out. */
export function notRunCases<T extends { evalCase: EvalCase; target: { name: string } }>(
  planned: readonly T[],
  finished: readonly EvaluationResult[],
  keyOf: (c: T) => string,
  evalFileName: (absolutePath: string) => string,
): NotRunCase[] {
  const ran = new Set(
    finished.map((result) => caseKey(evalFileName(result.evalFile), result.evalId, result.target)),
  );
  return planned
    .filter((c) => !ran.has(keyOf(c)))
    .map((c) => ({
      evalFile: c.evalCase.filePath,
      dataset: c.evalCase.dataset,
      evalId: c.evalCase.id,
      target: c.target.name,
    }));
}
