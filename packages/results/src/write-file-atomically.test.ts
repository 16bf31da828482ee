import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomically } from './write-file-atomically.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-atomic-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeFileAtomically', () => {
  it('writes a new file and replaces an old one, leaving no temp file', async () => {
    const file = path.join(dir, 'report.html');
    await writeFileAtomically(file, 'first');
    await writeFileAtomically(file, 'second');
    expect(await readFile(file, 'utf8')).toBe('second');
    expect(await readdir(dir)).toEqual(['report.html']);
  });

  it('removes its temp file and leaves the path as it was when the write fails', async () => {
    // A folder holding a file cannot be replaced by a file: the rename fails.
    const taken = path.join(dir, 'report.html');
    await mkdir(taken);
    await writeFile(path.join(taken, 'keep'), 'kept');
    const error = await writeFileAtomically(taken, 'new').catch((error: unknown) => error);
    expect((error as NodeJS.ErrnoException).code).toMatch(/^(EISDIR|ENOTEMPTY|EEXIST|EPERM)$/);
    expect(await readdir(dir)).toEqual(['report.html']);
    expect(await readFile(path.join(taken, 'keep'), 'utf8')).toBe('kept');
  });
});
