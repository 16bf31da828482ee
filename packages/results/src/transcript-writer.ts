import path from 'node:path';
import { type AttemptIdentity, attemptFileName } from './attempt-file-name.js';
import { createCaseFileFolder } from './case-file-names.js';

/** One attempt's transcript to save: the agent's raw event stream, masked by its provider. */
export type TranscriptRecord = AttemptIdentity & { transcript: string };

export interface TranscriptWriter {
  /** Absolute path of the folder the files go to. */
  readonly directory: string;
  /** Writes one attempt's `.jsonl` file and resolves to its absolute path. */
  write(record: TranscriptRecord): Promise<string>;
}

/**
 * The folder a result file's agent transcripts go to: beside it, named after it
 * (`eval_….jsonl` → `eval_….transcripts/`), like its workspace changes.
 */
export function transcriptsFolder(resultFile: string): string {
  const parsed = path.parse(path.resolve(resultFile));
  return path.join(parsed.dir, `${parsed.name}.transcripts`);
}

/**
 * Writes each attempt's transcript, as the agent wrote it (one event per line), into
 * `directory` (created on the first write), named like trace dumps:
 * `<case>[_<target>][_repeat-<r>]_attempt-<n>.jsonl`. A file of an earlier run with the same
 * name (`--resume`) is replaced.
 */
export function createTranscriptWriter(
  directory: string,
  options: { namesTarget?: boolean } = {},
): TranscriptWriter {
  const folder = createCaseFileFolder(directory);
  const used = new Set<string>();
  return {
    directory: folder.directory,
    write(record) {
      const name = attemptFileName(folder, used, record, options.namesTarget === true, 'jsonl');
      const text = record.transcript;
      return folder.writeText(name, text === '' || text.endsWith('\n') ? text : `${text}\n`);
    },
  };
}

/** A transcript's events, one per line: parsed JSON, or the line as it is when it is not JSON. */
export function transcriptEvents(transcript: string): unknown[] {
  const events: unknown[] = [];
  for (const line of transcript.split('\n')) {
    if (line.trim() === '') continue;
    try {
      events.push(JSON.parse(line));
    } catch {
      events.push(line);
    }
  }
  return events;
}
