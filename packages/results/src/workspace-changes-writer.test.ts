import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createWorkspaceChangesWriter,
  readWorkspaceChanges,
  type WorkspaceChanges,
  workspaceChangesFolder,
} from './workspace-changes-writer.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const changes: WorkspaceChanges = {
  files: [
    { path: 'logo.png', status: 'added', binary: true, insertions: 0, deletions: 0 },
    { path: 'src/sum.js', status: 'modified', insertions: 1, deletions: 1 },
  ],
  insertions: 1,
  deletions: 1,
  diff: 'diff --git a/src/sum.js b/src/sum.js\n-  return a - b;\n+  return a + b;\nBinary files /dev/null and b/logo.png differ\n',
};

describe('workspace changes writer', () => {
  it('names the folder after the result file, beside it', () => {
    expect(workspaceChangesFolder('/runs/eval_1.jsonl')).toBe('/runs/eval_1.workspaces');
  });

  it('saves the file list and the diff per case, and reads them back', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-ws-changes-'));
    const writer = createWorkspaceChangesWriter(path.join(dir, 'ws'));
    const base = { dataset: 'd', evalFile: '/repo/evals/a.yaml', target: 'coder' };
    const saved = await writer.write({ ...base, evalId: '../fix/bug', changes, keptAt: '/tmp/k' });
    await writer.write({
      ...base,
      evalId: 'clean',
      changes: { files: [], insertions: 0, deletions: 0, diff: '' },
    });
    expect((await readdir(writer.directory)).sort()).toEqual(
      [path.basename(saved), `${path.basename(saved, '.json')}.diff`, 'clean.json'].sort(),
    );
    expect(path.dirname(saved)).toBe(writer.directory);
    const json = JSON.parse(await readFile(saved, 'utf8'));
    expect(json).toMatchObject({ eval_id: '../fix/bug', kept_at: '/tmp/k', files_changed: 2 });
    expect(await readWorkspaceChanges(saved)).toEqual(changes);
    expect(await readWorkspaceChanges(path.join(writer.directory, 'clean.json'))).toEqual({
      files: [],
      insertions: 0,
      deletions: 0,
      diff: '',
    });
  });

  it('names target and repeat when asked, as trace dumps do', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-ws-changes-'));
    const writer = createWorkspaceChangesWriter(dir, { namesTarget: true });
    const saved = await writer.write({
      evalId: 'fix',
      dataset: 'd',
      evalFile: '/e.yaml',
      target: 'b',
      repeat: 2,
      changes,
    });
    expect(path.basename(saved)).toBe('fix_b_repeat-2.json');
  });
});
