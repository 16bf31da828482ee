import type { AttemptRecord } from '@agentv/core';
import type { TraceSummary } from '@agentv/core/internal';
import { type TraceEventRecord, traceRecords } from '@agentv/core/provider-utils';
import { attemptFileName } from './attempt-file-name.js';
import { type CaseIdentity, createCaseFileFolder } from './case-file-names.js';
import { transcriptEvents } from './transcript-writer.js';

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
  /**
   * The agent's raw events, one per line it wrote (a line that is not JSON as a string), masked;
   * present for providers that keep a transcript (coding agents).
   */
  transcript?: unknown[];
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
      const name = attemptFileName(folder, used, record, options.namesTarget === true, 'json');
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
    ...(record.transcript === undefined ? {} : { transcript: transcriptEvents(record.transcript) }),
  };
}
