import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  linkSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copySmallTree, SMALL_TREE } from './copy-small-tree.js';
import { copyTree } from './copy-tree.js';
import { walkTree } from './tree-snapshot.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentv-copy-small-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Every path of `root` with what `cp -a` keeps of it (inode numbers as link groups). */
function describeTree(root: string): Record<string, unknown> {
  const described: Record<string, unknown> = {};
  const groups = new Map<number, string>();
  const at = (path: string) => (path === '' ? root : `${root}/${path}`);
  const entry = (path: string) => {
    const stats = lstatSync(at(path));
    const link = stats.isSymbolicLink();
    return {
      type: stats.isDirectory() ? 'dir' : link ? 'link' : 'file',
      mode: stats.mode & 0o7777,
      uid: stats.uid,
      mtimeMs: Math.round(stats.mtimeMs),
      ...(link ? { target: readlinkSync(at(path)) } : {}),
      ...(stats.isFile()
        ? {
            content: readFileSync(at(path), 'utf8'),
            linkedTo: groups.get(stats.ino) ?? groups.set(stats.ino, path).get(stats.ino),
          }
        : {}),
    };
  };
  described['.'] = entry('');
  walkTree(root, undefined, (path) => {
    described[path] = entry(path);
    return true;
  });
  return described;
}

function makeTemplate(root: string): void {
  mkdirSync(`${root}/src/deep/er`, { recursive: true });
  mkdirSync(`${root}/empty`);
  writeFileSync(`${root}/README.md`, '# repo\n');
  writeFileSync(`${root}/src/index.js`, 'export const x = 1;\n');
  writeFileSync(`${root}/src/deep/er/run.sh`, '#!/bin/sh\n');
  chmodSync(`${root}/src/deep/er/run.sh`, 0o750);
  writeFileSync(`${root}/read-only.txt`, 'ro\n');
  chmodSync(`${root}/read-only.txt`, 0o444);
  linkSync(`${root}/README.md`, `${root}/src/README-link.md`);
  symlinkSync('../README.md', `${root}/src/readme`);
  symlinkSync('/nowhere/at/all', `${root}/dangling`);
  const old = new Date('2001-02-03T04:05:06Z');
  for (const path of ['README.md', 'src/index.js', 'src/deep/er/run.sh']) {
    utimesSync(`${root}/${path}`, old, old);
  }
  lutimesSync(`${root}/src/readme`, old, old);
  chmodSync(`${root}/src/deep`, 0o705);
  for (const path of ['src/deep/er', 'src/deep', 'src', 'empty', '']) {
    utimesSync(path === '' ? root : `${root}/${path}`, old, old);
  }
  chmodSync(root, 0o750);
}

describe('copySmallTree', () => {
  it('copies a tree as `cp -a` does: modes, times, symbolic and hard links', () => {
    makeTemplate(`${dir}/template`);
    mkdirSync(`${dir}/by-cp`);
    execFileSync('cp', ['-a', `${dir}/template/.`, `${dir}/by-cp`]);
    mkdirSync(`${dir}/copy`);
    expect(copySmallTree(`${dir}/template`, `${dir}/copy`)).toBe(true);
    expect(describeTree(`${dir}/copy`)).toEqual(describeTree(`${dir}/by-cp`));
    // The copy is its own: writing to it leaves the template alone.
    writeFileSync(`${dir}/copy/src/index.js`, 'changed\n');
    expect(readFileSync(`${dir}/template/src/index.js`, 'utf8')).toBe('export const x = 1;\n');
  });

  it('leaves to `cp`, writing nothing, a repository, a special file, or too many files', () => {
    mkdirSync(`${dir}/repo/.git`, { recursive: true });
    mkdirSync(`${dir}/fifo`);
    execFileSync('mkfifo', [`${dir}/fifo/pipe`]);
    mkdirSync(`${dir}/many`);
    for (let n = 0; n <= SMALL_TREE.entries; n++) writeFileSync(`${dir}/many/${n}.txt`, '');
    for (const source of ['repo', 'fifo', 'many']) {
      mkdirSync(`${dir}/to-${source}`);
      expect(copySmallTree(`${dir}/${source}`, `${dir}/to-${source}`)).toBe(false);
      expect(readdirSync(`${dir}/to-${source}`)).toEqual([]);
    }
  });
});

describe('copyTree', () => {
  it('copies a small tree and a large one alike', async () => {
    makeTemplate(`${dir}/small`);
    makeTemplate(`${dir}/large`);
    for (let n = 0; n < SMALL_TREE.entries; n++) writeFileSync(`${dir}/large/${n}.txt`, `${n}`);
    for (const source of ['small', 'large']) {
      mkdirSync(`${dir}/cp-${source}`);
      execFileSync('cp', ['-a', `${dir}/${source}/.`, `${dir}/cp-${source}`]);
      await copyTree(`${dir}/${source}`, `${dir}/to-${source}`, process.env);
      expect(describeTree(`${dir}/to-${source}`)).toEqual(describeTree(`${dir}/cp-${source}`));
    }
  });
});
