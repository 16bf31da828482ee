import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import type { FileChanges } from '../../workspace/file-changes.js';
import type { CaseWorkspace } from '../evaluator.js';

/** No changes. */
export const NO_CHANGES: FileChanges = { files: [], insertions: 0, deletions: 0, diff: '' };

// Removed when the test that made it ends. Not a module-level afterEach: core's files share one
// module graph (isolate: false), so such a hook would belong to the first file that imported this
// module only, and every later file's folders were left in the temp directory.
function removeAfterTest(folder: string): string {
  onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

/**
 * A real folder in the system temp directory holding `files` (path → text or
 * bytes), removed after the test, as a case's workspace with `changes`.
 */
export function makeWorkspace(
  files: Record<string, string | Buffer> = {},
  changes: FileChanges = NO_CHANGES,
): CaseWorkspace {
  const folder = removeAfterTest(
    realpathSync(mkdtempSync(path.join(tmpdir(), 'agentv-test-workspace-'))),
  );
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(folder, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  return { path: folder, changes };
}

/** A temp folder outside any workspace, removed after the test. */
export function makeOutsideFolder(): string {
  return removeAfterTest(realpathSync(mkdtempSync(path.join(tmpdir(), 'agentv-test-outside-'))));
}
