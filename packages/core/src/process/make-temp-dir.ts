import { mkdtempSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Makes a new private folder in the system temp directory, named
 * `agentv-<kind>-<pid>-XXXXXX` (`kind` such as `cli` or `cli-batch`: letters and dashes).
 * The pid in the name is what lets the watchdog remove the folder if this process is killed,
 * and the next run remove it once this process is gone; folders of a running process are
 * never touched. Removing it when done is still the caller's job.
 */
export function makeTempDir(kind: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `agentv-${kind}-${process.pid}-`));
}

/** `makeTempDir`, synchronous: for a folder made on the way to a process's start. */
export function makeTempDirSync(kind: string): string {
  return mkdtempSync(join(tmpdir(), `agentv-${kind}-${process.pid}-`));
}
