import { readFile, truncate } from 'node:fs/promises';
import path from 'node:path';
import { AgentvError, type EvalCase, type EvaluationResult } from '@agentv/core';
import { displayPath, UsageError } from '@agentv/core/internal';
import {
  fromResultRecord,
  type NotRunCase,
  type ReadResultLine,
  ResultFileLineError,
  type RunRecord,
  readResultFile,
  writeFileAtomically,
} from '@agentv/results';
import { caseKey } from './shard.js';
import { describeWriteError } from './write-failure.js';

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
 * Reads the result file of `--resume PATH` for the run `run`. Lines of another
 * run (different `run.id` or shard) are refused. Errored cases are run again:
 * their lines are dropped by rewriting the file atomically (temp file + rename),
 * so the file ends up holding one line per case. A last line cut short (the
 * run writing it was stopped mid-write) is dropped the same way, and `warn`
 * says so; its case runs again.
 */
export async function prepareResume(
  filePath: string,
  run: RunRecord,
  cwd: string,
  /** The absolute path of an eval file named as in `eval_file`. */
  resolveEvalFile: (name: string) => string = (name) => path.resolve(cwd, name),
  warn: (message: string) => void = () => {},
): Promise<ResumeState> {
  const shown = displayPath(cwd, filePath);
  if (/\.ya?ml$/i.test(filePath)) {
    throw new UsageError(`--resume ${shown}: only JSONL result files can be resumed`, {
      hint: 'resume a run that wrote JSONL (--out PATH.jsonl, the default)',
    });
  }
  let lines: ReadResultLine[];
  let torn: number | undefined;
  try {
    lines = await readResultFile(filePath, {
      onTornLastLine: (line) => {
        torn = line;
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { existed: false, done: new Set(), errored: new Set(), previous: [] };
    }
    if (error instanceof ResultFileLineError) {
      throw new UsageError(error.describe(shown), {
        hint: 'pass --resume the JSONL result file an earlier agentv eval wrote',
      });
    }
    throw new UsageError(`cannot read ${shown}: ${(error as Error).message}`, {
      hint: 'check the path given to --resume',
    });
  }
  for (const { record, line } of lines) {
    const other = record.run;
    if (other?.id !== run.id || other.shard !== run.shard) {
      throw new UsageError(
        `${shown}:${line} belongs to another run (${describe(other)}), not this one (${describe(run)})`,
        {
          hint: 'resume with the same eval files, filters (--eval-id, --filter, --tag), targets and --shard as the interrupted run, or pass --out a new file to start a new run',
        },
      );
    }
  }
  const done = new Set<string>();
  const errored = new Set<string>();
  const kept: ReadResultLine[] = [];
  for (const entry of lines) {
    const { record } = entry;
    const key = caseKey(record.eval_file ?? record.dataset, record.eval_id, record.target);
    if (record.error !== undefined) {
      errored.add(key);
      continue;
    }
    if (done.has(key)) continue;
    done.add(key);
    kept.push(entry);
  }
  // A case that errored and then finished in a later part is done.
  for (const key of done) errored.delete(key);
  if (torn !== undefined) {
    warn(
      `${shown}:${torn}: the last line is incomplete (the run that wrote it was interrupted); it is dropped and its case runs again`,
    );
  }
  const rewrite =
    kept.length !== lines.length
      ? () =>
          writeFileAtomically(
            filePath,
            kept.map(({ record }) => `${JSON.stringify(record)}\n`).join(''),
          )
      : torn !== undefined
        ? () => cutAfterLastNewline(filePath)
        : undefined;
  await rewrite?.().catch((error: unknown) => {
    throw new AgentvError(`could not rewrite ${shown}: ${describeWriteError(error)}`, {
      hint: `free some space on that disk and resume again; ${shown} is unchanged`,
      cause: error,
    });
  });
  const previous = kept.map(({ record }) =>
    fromResultRecord(record, resolveEvalFile(record.eval_file ?? record.dataset)),
  );
  return { existed: true, done, errored, previous };
}

/** Truncates the file after its last newline: a cut needs no free space, unlike a rewrite. */
async function cutAfterLastNewline(filePath: string): Promise<void> {
  const content = await readFile(filePath);
  await truncate(filePath, content.lastIndexOf(0x0a) + 1);
}

function describe(run: RunRecord | undefined): string {
  if (run === undefined) return 'no run id';
  const shard = run.shard === undefined ? '' : `, shard ${run.shard}`;
  return `run ${run.id} of ${run.cases} cases${shard}`;
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
