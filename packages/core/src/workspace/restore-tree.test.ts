import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PARALLEL_MIN_PATHS, parallelLstatReady } from './parallel-lstat.js';
import { restoreTree } from './restore-tree.js';
import { tempFolder, treeHash, writeFiles } from './test-support/workspace-fixtures.js';
import { snapshotTree, treeEntry } from './tree-snapshot.js';

const cleanup: string[] = [];
afterEach(() => {
  for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function pair() {
  const base = tempFolder('ws-restore');
  cleanup.push(base);
  const pristine = join(base, 'pristine');
  writeFiles(pristine, {
    'a.txt': 'aaaa\n',
    'dir/b.txt': 'bbbb\n',
    'dir/nested/c.txt': 'cccc\n',
    'other/d.txt': 'dddd\n',
  });
  chmodSync(join(pristine, 'dir/b.txt'), 0o755);
  symlinkSync('a.txt', join(pristine, 'link'));
  const target = join(base, 'target');
  execFileSync('cp', ['-a', pristine, target]);
  const expected = snapshotTree(target);
  const restore = (snapshot = expected) =>
    restoreTree(target, (path) => join(pristine, path), snapshot);
  return { pristine, target, expected, restore, hash: treeHash(pristine) };
}

describe('restoreTree', () => {
  it('returns the same snapshot and touches nothing when nothing changed', () => {
    const { target, expected, restore, hash } = pair();
    expect(restore()).toBe(expected);
    expect(treeHash(target)).toBe(hash);
  });

  it('undoes additions, deletions, edits, type swaps, link changes and mode changes', () => {
    const { target, restore, hash } = pair();
    writeFileSync(join(target, 'added.txt'), 'x');
    writeFiles(target, { 'new/deep/er.txt': 'x', 'dir/nested/extra.txt': 'x' });
    rmSync(join(target, 'other'), { recursive: true });
    writeFileSync(join(target, 'other'), 'a file where a folder was');
    unlinkSync(join(target, 'a.txt'));
    mkdirSync(join(target, 'a.txt'));
    writeFileSync(join(target, 'a.txt/inside'), 'x');
    writeFileSync(join(target, 'dir/nested/c.txt'), 'CCCC\n');
    chmodSync(join(target, 'dir/b.txt'), 0o600);
    chmodSync(join(target, 'dir'), 0o700);
    unlinkSync(join(target, 'link'));
    symlinkSync('/etc/passwd', join(target, 'link'));
    const snapshot = restore();
    expect(treeHash(target)).toBe(hash);
    // The snapshot returned describes the tree as it is: a second restore changes nothing.
    expect(restoreTree(target, () => '/nonexistent', snapshot)).toBe(snapshot);
  });

  it('notices an edit that kept the size and the modification time, and an atomic replace', () => {
    const { target, restore, hash } = pair();
    const file = join(target, 'dir/b.txt');
    const { atime, mtime } = statSync(file);
    writeFileSync(file, 'BBBB\n');
    utimesSync(file, atime, mtime);
    writeFileSync(join(target, 'tmp'), 'dddd\n');
    renameSync(join(target, 'tmp'), join(target, 'other/d.txt'));
    restore();
    expect(treeHash(target)).toBe(hash);
  });

  it('puts back files and folders deleted deep down', () => {
    const { target, restore, hash } = pair();
    rmSync(join(target, 'dir'), { recursive: true });
    const snapshot = restore();
    expect(treeHash(target)).toBe(hash);
    rmSync(join(target, 'dir/nested/c.txt'));
    restore(snapshot);
    expect(treeHash(target)).toBe(hash);
  });

  it('lists a folder whose change time is as recorded but recent (a coarse clock may not have ticked)', () => {
    const { target, restore, hash } = pair();
    const snapshot = restore();
    writeFileSync(join(target, 'dir/nested/same-tick.txt'), 'x');
    // As if the file system's clock had not moved since the restore recorded the folder.
    snapshot.set('dir/nested', treeEntry(lstatSync(join(target, 'dir/nested'))));
    restore(snapshot);
    expect(treeHash(target)).toBe(hash);
  });

  it('finds what is added in a folder it has not listed for a while', async () => {
    const { target, restore, hash } = pair();
    let snapshot = restore();
    // Past the racy window: from here on unchanged folders are not listed.
    await new Promise((resolve) => setTimeout(resolve, 120));
    snapshot = restore(snapshot);
    snapshot = restore(snapshot);
    writeFileSync(join(target, 'dir/nested/late.txt'), 'x');
    mkdirSync(join(target, 'other/sub'));
    writeFileSync(join(target, 'dir/nested/c.txt'), 'cccC\n');
    restore(snapshot);
    expect(treeHash(target)).toBe(hash);
  });

  it('puts back a folder made unreadable, and what is in it', () => {
    const { target, restore, hash } = pair();
    writeFileSync(join(target, 'dir/nested/c.txt'), 'changed\n');
    chmodSync(join(target, 'dir/nested'), 0o000);
    chmodSync(join(target, 'dir'), 0o000);
    restore();
    expect(treeHash(target)).toBe(hash);
  });

  it('restores a tree of thousands of paths, read in part by a helper thread', async () => {
    const base = tempFolder('ws-restore-large');
    cleanup.push(base);
    const pristine = join(base, 'pristine');
    const files: Record<string, string> = {};
    for (let n = 0; n < PARALLEL_MIN_PATHS + 200; n++) files[`d${n % 40}/f${n}.txt`] = `${n}\n`;
    writeFiles(pristine, files);
    const target = join(base, 'target');
    execFileSync('cp', ['-a', pristine, target]);
    const hash = treeHash(pristine);
    let snapshot = snapshotTree(target);
    expect(await parallelLstatReady()).toBe(true);
    // Edits at the start and the end of the list (each half is read by another thread).
    writeFileSync(join(target, 'd0/f0.txt'), 'edited\n');
    // Same size and modification time: only the change time tells.
    const kept = lstatSync(join(target, 'd39/f2199.txt'));
    writeFileSync(join(target, 'd39/f2199.txt'), '9912\n');
    utimesSync(join(target, 'd39/f2199.txt'), kept.atime, kept.mtime);
    unlinkSync(join(target, 'd1/f1.txt'));
    unlinkSync(join(target, 'd38/f2198.txt'));
    chmodSync(join(target, 'd37/f2197.txt'), 0o700);
    rmSync(join(target, 'd36'), { recursive: true });
    writeFileSync(join(target, 'd36'), 'a file where a folder was');
    writeFileSync(join(target, 'd35/added.txt'), 'x');
    // Untouched files of either half are left alone (not copied again: same change time).
    const order = [...snapshot.keys()].filter((path) => path.endsWith('.txt'));
    const untouched = [order[5]!, order[order.length - 5]!].map((path) => join(target, path));
    const changed = untouched.map((path) => lstatSync(path).ctimeMs);
    snapshot = restoreTree(target, (path) => join(pristine, path), snapshot);
    expect(treeHash(target)).toBe(hash);
    expect(untouched.map((path) => lstatSync(path).ctimeMs)).toEqual(changed);
    // Again, with the list already sent to the helper thread.
    writeFileSync(join(target, 'd20/f20.txt'), 'edited again\n');
    restoreTree(target, (path) => join(pristine, path), snapshot);
    expect(treeHash(target)).toBe(hash);
  });
});
