import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeFolder } from './remove-folder.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentv-remove-folder-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('removeFolder', () => {
  it('removes a tree, and the links in it but not what they point to', async () => {
    mkdirSync(`${dir}/outside`);
    writeFileSync(`${dir}/outside/kept.txt`, 'kept');
    const home = `${dir}/home`;
    mkdirSync(`${home}/skills/.system/a/b`, { recursive: true });
    mkdirSync(`${home}/empty`);
    for (let n = 0; n < 30; n++) writeFileSync(`${home}/skills/.system/a/${n}.md`, `${n}`);
    writeFileSync(`${home}/skills/.system/a/b/deep.txt`, 'deep');
    writeFileSync(`${home}/.hidden`, '');
    symlinkSync(`${dir}/outside`, `${home}/link-to-folder`);
    symlinkSync('/nowhere', `${home}/dangling`);
    await removeFolder(home);
    expect(existsSync(home)).toBe(false);
    expect(readdirSync(`${dir}/outside`)).toEqual(['kept.txt']);
  });

  it('rejects for a folder that is not there', async () => {
    await expect(removeFolder(`${dir}/missing`)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
