import path from 'node:path';
import type { EvaluationResult } from '@agentv/core';
import { displayPath, UsageError } from '@agentv/core/internal';
import { fromResultRecord, type ReadResultLine, type ResultRecord } from '@agentv/results';
import { caseKey } from '../eval/shard.js';
import { readResultLines } from './read-result-lines.js';

/** The joined content of several result files of one run. */
export interface MergedRun {
  /** Every result line, in file order, without its `run.shard`. */
  records: ResultRecord[];
  /** The same lines as results, for the summary and the reports. */
  results: EvaluationResult[];
}

interface Part {
  file: string;
  lines: ReadResultLine[];
  runId: string | undefined;
  runCases: number | undefined;
  shard: string | undefined;
}

/**
 * Reads and joins result files. A run is identified by the `run.id` every
 * line carries (a hash of the selected eval files, case ids and targets), so
 * the shards of one run share it and parts of another run are refused. A case
 * (eval file, id, target) found twice is refused, and so is a set of shards
 * that does not hold every case of the run.
 */
export async function mergeResultFiles(files: readonly string[], cwd: string): Promise<MergedRun> {
  const parts: Part[] = [];
  for (const file of files) {
    const shown = displayPath(cwd, file);
    const lines = await readResultLines(
      file,
      cwd,
      'pass the JSONL result files agentv eval wrote: each shard writes its own with --out PATH.jsonl',
    );
    const ids = new Set(lines.map((line) => line.record.run?.id));
    if (ids.size > 1) {
      throw new UsageError(`${shown} holds lines of ${ids.size} different runs`, {
        hint: 'a result file holds one run; was it appended to by hand?',
      });
    }
    const first = lines[0]?.record.run;
    parts.push({
      file: shown,
      lines,
      runId: first?.id,
      runCases: first?.cases,
      shard: first?.shard,
    });
  }

  const withLines = parts.filter((part) => part.lines.length > 0);
  const reference = withLines[0];
  for (const part of withLines.slice(1)) {
    if (part.runId !== reference!.runId) {
      throw new UsageError(
        `${part.file} and ${reference!.file} come from different runs (${describeRun(part)} vs ${describeRun(reference!)})`,
        {
          hint: 'merge only the shards of one run: start every shard with the same eval files, filters (--eval-id, --filter, --tag) and targets',
        },
      );
    }
    const count = shardCount(part.shard);
    if (count !== shardCount(reference!.shard)) {
      throw new UsageError(
        `${part.file} is shard ${part.shard ?? '(none)'} but ${reference!.file} is shard ${reference!.shard ?? '(none)'}`,
        { hint: 'every shard of a run must be started with the same --shard i/n count n' },
      );
    }
  }

  const seen = new Map<string, string>();
  const records: ResultRecord[] = [];
  const results: EvaluationResult[] = [];
  for (const part of parts) {
    for (const { record, line } of part.lines) {
      const evalFile = record.eval_file ?? record.dataset;
      const key = caseKey(evalFile, record.eval_id, record.target);
      const where = `${part.file}:${line}`;
      const earlier = seen.get(key);
      if (earlier !== undefined) {
        throw new UsageError(
          `case "${record.eval_id}" (eval file ${evalFile}, target ${record.target}) is in ${earlier} and again in ${where}`,
          { hint: 'each case must be in exactly one file: was one shard passed twice?' },
        );
      }
      seen.set(key, where);
      const { run, ...rest } = record;
      records.push(run === undefined ? record : { ...rest, run: { id: run.id, cases: run.cases } });
      results.push(fromResultRecord(record, path.resolve(cwd, evalFile)));
    }
  }

  const expected = reference?.runCases;
  if (expected !== undefined && records.length !== expected) {
    const count = shardCount(reference!.shard);
    const present = new Set(withLines.map((part) => part.shard));
    const missing =
      count === undefined
        ? []
        : Array.from({ length: count }, (_, i) => `${i + 1}/${count}`).filter(
            (shard) => !present.has(shard),
          );
    throw new UsageError(`the files hold ${records.length} of the run's ${expected} cases`, {
      hint:
        missing.length > 0
          ? `pass the result files of the missing shard(s) ${missing.join(', ')} (an empty shard writes an empty file)`
          : 'a shard was interrupted or its file is incomplete: run that shard again',
    });
  }
  return { records, results };
}

function shardCount(shard: string | undefined): number | undefined {
  return shard === undefined ? undefined : Number(shard.split('/')[1]);
}

function describeRun(part: Part): string {
  return part.runId === undefined
    ? 'no run id'
    : `run ${part.runId} of ${part.runCases ?? '?'} cases`;
}
