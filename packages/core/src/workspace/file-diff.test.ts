import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileDiff } from './file-diff.js';
import { tempFolder } from './test-support/workspace-fixtures.js';

const cleanup: string[] = [];
afterEach(() => {
  for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const text = (content: string) => ({ content: Buffer.from(content), gitMode: '100644' });

/** Applies `diff` with `git apply` to a file holding `before`; returns the file's content after. */
function gitApply(before: string | undefined, diff: string): string | undefined {
  const dir = tempFolder('ws-diff');
  cleanup.push(dir);
  if (before !== undefined) writeFileSync(join(dir, 'f.txt'), before);
  writeFileSync(join(dir, 'patch.diff'), diff);
  execFileSync('git', ['apply', '--whitespace=nowarn', 'patch.diff'], { cwd: dir, stdio: 'pipe' });
  try {
    return readFileSync(join(dir, 'f.txt'), 'utf8');
  } catch {
    return undefined;
  }
}

function randomText(random: () => number, lines: number, endNewline: boolean): string {
  const words = ['alpha', 'beta', 'gamma', 'delta', '', '  indented', 'x'];
  const out = Array.from({ length: lines }, () => words[Math.floor(random() * words.length)]);
  return out.length === 0 ? '' : `${out.join('\n')}${endNewline ? '\n' : ''}`;
}

function mulberry32(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('fileDiff', () => {
  it('writes diffs git apply accepts, for random edits with and without final newlines', () => {
    const random = mulberry32(7);
    for (let round = 0; round < 60; round++) {
      const before = randomText(random, Math.floor(random() * 30), random() < 0.8);
      const lines = before.split('\n');
      // Edit: replace, insert and remove some lines.
      for (let edit = 0; edit < 1 + Math.floor(random() * 4); edit++) {
        const at = Math.floor(random() * (lines.length + 1));
        const kind = random();
        if (kind < 0.33) lines.splice(at, 1);
        else if (kind < 0.66) lines.splice(at, 0, `inserted ${round}-${edit}`);
        else lines[at] = `replaced ${round}-${edit}`;
      }
      let after = lines.join('\n');
      if (random() < 0.2) after = after.replace(/\n$/, '');
      const result = fileDiff('f.txt', text(before), text(after));
      if (before === after) {
        expect(result).toBeUndefined();
        continue;
      }
      expect(gitApply(before, result!.diff), `round ${round}`).toBe(after);
    }
  });

  it('names new, deleted and changed-mode files as git does, and counts lines', () => {
    const added = fileDiff('f.txt', {}, text('a\nb\n'))!;
    expect(added.change).toEqual({ path: 'f.txt', status: 'added', insertions: 2, deletions: 0 });
    expect(added.diff).toBe(
      'diff --git a/f.txt b/f.txt\nnew file mode 100644\n--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n',
    );
    expect(gitApply(undefined, added.diff)).toBe('a\nb\n');
    const deleted = fileDiff('f.txt', text('a'), {})!;
    expect(deleted.diff).toBe(
      'diff --git a/f.txt b/f.txt\ndeleted file mode 100644\n--- a/f.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n\\ No newline at end of file\n',
    );
    expect(gitApply('a', deleted.diff)).toBeUndefined();
    const mode = fileDiff('f.txt', text('a\n'), { ...text('a\n'), gitMode: '100755' })!;
    expect(mode.diff).toBe('diff --git a/f.txt b/f.txt\nold mode 100644\nnew mode 100755\n');
  });

  it('names a binary file without its content', () => {
    const result = fileDiff('img.png', text('\0abc'), text('\0abd'))!;
    expect(result.change).toEqual({
      path: 'img.png',
      status: 'modified',
      binary: true,
      insertions: 0,
      deletions: 0,
    });
    expect(result.diff).toBe(
      'diff --git a/img.png b/img.png\nBinary files a/img.png and b/img.png differ\n',
    );
  });

  it('keeps time and memory bounded for files that differ everywhere', () => {
    const before = Array.from({ length: 20_000 }, (_, i) => `old ${i}`).join('\n');
    const after = Array.from({ length: 20_000 }, (_, i) => `new ${i}`).join('\n');
    const result = fileDiff('big.txt', text(before), text(after))!;
    expect(result.change).toMatchObject({ insertions: 20_000, deletions: 20_000 });
  });
});
