import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { FileChanges } from '../../workspace/file-changes.js';
import type { CaseWorkspace } from '../evaluator.js';

/** No changes. */
export const NO_CHANGES: FileChanges = { files: [], insertions: 0, deletions: 0, diff: '' };

const made: string[] = [];

afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/**
 * A real folder in the system temp directory holding `files` (path → text or
 * bytes), removed after the test, as a case's workspace with `changes`.
 */
export function makeWorkspace(
  files: Record<string, string | Buffer> = {},
  changes: FileChanges = NO_CHANGES,
): CaseWorkspace {
  const folder = realpathSync(mkdtempSync(path.join(tmpdir(), 'agentv-test-workspace-')));
  made.push(folder);
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(folder, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  return { path: folder, changes };
}

/** A temp folder outside any workspace, removed after the test. */
export function makeOutsideFolder(): string {
  const folder = realpathSync(mkdtempSync(path.join(tmpdir(), 'agentv-test-outside-')));
  made.push(folder);
  return folder;
}
