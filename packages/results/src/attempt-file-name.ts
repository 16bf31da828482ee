import type { AttemptRecord } from '@agentv/core';
import { type CaseFileFolder, type CaseIdentity, safeFileStem } from './case-file-names.js';

/** What names one attempt's file: the case, its target, repeat and attempt. */
export type AttemptIdentity = CaseIdentity & Pick<AttemptRecord, 'target' | 'repeat' | 'attempt'>;

/**
 * The file name of one attempt of a case: `<case>[_<target>][_repeat-<r>]_attempt-<n>.<extension>`,
 * made unique within `used` (lower-cased names, for case-insensitive file systems).
 */
export function attemptFileName(
  folder: CaseFileFolder,
  used: Set<string>,
  record: AttemptIdentity,
  namesTarget: boolean,
  extension: string,
): string {
  const caseStem = folder.stemFor(record);
  // A run of several targets dumps each case once per target: `<case>_<target>_attempt-<n>.json`.
  const named = namesTarget ? `${caseStem}_${safeFileStem(record.target)}` : caseStem;
  // Attempts count from 1 again in each repeat: the repeat tells them apart.
  const stem = record.repeat === undefined ? named : `${named}_repeat-${record.repeat}`;
  let name = `${stem}_attempt-${record.attempt}.${extension}`;
  // Only reached when a record lacks the dataset and file that tell two same-id cases apart.
  for (let counter = 2; used.has(name.toLowerCase()); counter++) {
    name = `${stem}_attempt-${record.attempt}-${counter}.${extension}`;
  }
  used.add(name.toLowerCase());
  return name;
}
