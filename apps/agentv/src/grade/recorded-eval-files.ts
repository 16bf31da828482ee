import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ReadResultLine } from '@agentv/results';

export interface RecordedEvalFiles {
  /** Absolute paths of the recorded eval files that were found. */
  found: string[];
  /** Recorded names (`eval_file`) with no file behind them. */
  missing: string[];
}

/**
 * Finds the eval files a result file names. Lines name them relative to their
 * project root (the folder holding `.agentv/`, else the repository root, else
 * the run's cwd), so each name is looked up against cwd and every folder
 * above it, and kept where `evalFileName` names the file back the same way.
 */
export function findRecordedEvalFiles(
  lines: readonly ReadResultLine[],
  cwd: string,
  evalFileName: (absolutePath: string) => string,
): RecordedEvalFiles {
  const names = [...new Set(lines.map(({ record }) => record.eval_file ?? record.dataset))];
  const found: string[] = [];
  const missing: string[] = [];
  for (const name of names) {
    const file = locate(name, cwd, evalFileName);
    if (file === undefined) missing.push(name);
    else found.push(file);
  }
  return { found, missing };
}

function locate(
  name: string,
  cwd: string,
  evalFileName: (absolutePath: string) => string,
): string | undefined {
  let dir = cwd;
  for (;;) {
    const candidate = path.resolve(dir, name);
    if (isFile(candidate) && evalFileName(candidate) === name) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function isFile(file: string): boolean {
  return existsSync(file) && statSync(file).isFile();
}
