import { readFile, truncate } from 'node:fs/promises';
import path from 'node:path';
import { AgentvError } from '@agentv/core';
import { displayPath, UsageError } from '@agentv/core/internal';
import {
  fromResultRecord,
  type ReadResultLine,
  ResultFileLineError,
  type RunRecord,
  readResultFile,
  writeFileAtomically,
} from '@agentv/results';
import type { ResumeState } from './resume.js';
import { caseKey } from './shard.js';
import { describeWriteError } from './write-failure.js';

// Its own file, loaded only under `--resume`: reading result files brings the result-line
// schema, which every other run would build at start-up for nothing.
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
  /** The repeats of each case this run asks for (`--repeat`, or the eval files' trials). */
  repeatCount = 1,
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
  // A case finished with other repeats would be summed up as this run's (pass@k over k it never
  // ran): refused like a line of another run.
  for (const { record, line } of lines) {
    if (record.error !== undefined) continue;
    const repeats = record.repeats?.planned ?? record.repeats?.count ?? 1;
    if (repeats !== repeatCount) {
      throw new UsageError(
        `${shown}:${line} was written by a run with ${repeatsOf(repeats)} per case; this run has ${repeatsOf(repeatCount)}`,
        {
          hint: `resume with ${repeats === 1 ? 'no --repeat' : `--repeat ${repeats}`} (as the interrupted run), or pass --out a new file to start a new run`,
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

function repeatsOf(count: number): string {
  return count === 1 ? 'no repeats (one run)' : `--repeat ${count}`;
}

function describe(run: RunRecord | undefined): string {
  if (run === undefined) return 'no run id';
  const shard = run.shard === undefined ? '' : `, shard ${run.shard}`;
  return `run ${run.id} of ${run.cases} case${run.cases === 1 ? '' : 's'}${shard}`;
}
