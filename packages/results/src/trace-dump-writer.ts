import type { AttemptRecord } from '@agentv/core';
import type { TraceSummary } from '@agentv/core/internal';
import { type TraceEventRecord, traceRecords } from '@agentv/core/provider-utils';
import { type CaseIdentity, createCaseFileFolder, safeFileStem } from './case-file-names.js';

/** One provider call to dump, with where its case came from when known. */
export type TraceDumpRecord = AttemptRecord & Pick<CaseIdentity, 'dataset' | 'evalFile'>;

/** The content of one trace dump file (`--dump-traces`, README "Running"). */
export interface TraceDumpFile {
  eval_id: string;
  dataset?: string;
  /** Under `--repeat N`: the 1-based repeat; absent without `--repeat`. */
  repeat?: number;
  /** 1-based, counted again from 1 in each repeat. */
  attempt: number;
  target: string;
  duration_ms: number;
  /** Why the call failed, for a failed attempt. */
  error?: string;
  /** Null when the provider gave no trace. */
  trace_summary: TraceSummary | null;
  /** The normalised trace; null when the provider gave none. */
  trace: TraceEventRecord[] | null;
}

export interface TraceDumpWriter {
  /** Absolute path of the folder the files go to. */
  readonly directory: string;
  /** Writes one attempt's file and resolves to its absolute path. */
  write(record: TraceDumpRecord): Promise<string>;
}

/**
 * Writes one pretty-printed JSON file per case attempt into `directory`
 * (created on the first write), named `<case>_attempt-<n>.json` where `<case>`
 * is the sanitised case id (see `createCaseFileNames`): no id can place a file
 * outside the folder, and two cases never share a file, even with the same id.
 * A file left from an earlier run with the same name is replaced. With
 * `namesTarget` (a run of several targets) the name holds the target too, and a
 * record of a repeat (`--repeat N`) holds it before the attempt:
 * `<case>[_<target>]_repeat-<r>_attempt-<n>.json`.
 */
export function createTraceDumpWriter(
  directory: string,
  options: { namesTarget?: boolean } = {},
): TraceDumpWriter {
  const folder = createCaseFileFolder(directory);
  const used = new Set<string>();
  return {
    directory: folder.directory,
    async write(record) {
      const caseStem = folder.stemFor(record);
      // A run of several targets dumps each case once per target: `<case>_<target>_attempt-<n>.json`.
      const named = options.namesTarget ? `${caseStem}_${safeFileStem(record.target)}` : caseStem;
      // Attempts count from 1 again in each repeat: the repeat tells them apart.
      const stem = record.repeat === undefined ? named : `${named}_repeat-${record.repeat}`;
      let name = `${stem}_attempt-${record.attempt}.json`;
      // Only reached when a record lacks the dataset and file that tell two same-id cases apart.
      for (let counter = 2; used.has(name.toLowerCase()); counter++) {
        name = `${stem}_attempt-${record.attempt}-${counter}.json`;
      }
      used.add(name.toLowerCase());
      return folder.writeJson(name, toTraceDumpFile(record));
    },
  };
}

function toTraceDumpFile(record: TraceDumpRecord): TraceDumpFile {
  return {
    eval_id: record.evalId,
    ...(record.dataset === undefined ? {} : { dataset: record.dataset }),
    ...(record.repeat === undefined ? {} : { repeat: record.repeat }),
    attempt: record.attempt,
    target: record.target,
    duration_ms: record.durationMs,
    ...(record.error === undefined ? {} : { error: record.error }),
    trace_summary: record.traceSummary,
    trace: record.trace ? traceRecords(record.trace) : null,
  };
}
