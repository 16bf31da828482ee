import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileRootsFor } from './file-roots.js';
import { type FileLookup, resolveInputFile } from './resolve-input-file.js';

let scratch: string;
let project: string;
let outside: string;

beforeEach(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'agentv-roots-'));
  project = path.join(scratch, 'project');
  outside = path.join(scratch, 'outside');
  await mkdir(path.join(project, '.git'), { recursive: true });
  await mkdir(path.join(project, 'evals'));
  await mkdir(outside);
  await writeFile(path.join(project, 'evals/inside.txt'), 'inside');
  await writeFile(path.join(outside, 'secret.txt'), 'secret');
});

afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function lookup(allowed: string[] = []): Promise<FileLookup> {
  const evalDir = path.join(project, 'evals');
  return {
    searchDirs: [evalDir, project],
    evalDir,
    repoRoot: project,
    cwd: project,
    guidelinePatterns: [],
    checked: new Map(),
    roots: await fileRootsFor(evalDir, allowed),
    rootChecks: new Map(),
  };
}

describe('resolveInputFile: files stay inside the project', () => {
  it('reads a file of the project, by relative or absolute path', async () => {
    const files = await lookup();
    const inside = path.join(project, 'evals/inside.txt');
    expect(await resolveInputFile('inside.txt', files)).toMatchObject({ path: inside });
    expect(await resolveInputFile(inside, files)).toMatchObject({ path: inside });
  });

  it('refuses an absolute path outside the project', async () => {
    const secret = path.join(outside, 'secret.txt');
    const resolved = await resolveInputFile(secret, await lookup());
    expect(resolved.path).toBeUndefined();
    expect(resolved.refused).toEqual({ kind: 'outside', resolved: secret, realPath: secret });
  });

  it('refuses a relative path that climbs out with ..', async () => {
    const resolved = await resolveInputFile('../../outside/secret.txt', await lookup());
    expect(resolved.refused).toMatchObject({
      kind: 'outside',
      realPath: path.join(outside, 'secret.txt'),
    });
  });

  it('refuses a symlink inside the project that points outside, naming its target', async () => {
    await symlink(path.join(outside, 'secret.txt'), path.join(project, 'evals/link.txt'));
    await symlink(outside, path.join(project, 'evals/linked-folder'));
    const files = await lookup();
    expect((await resolveInputFile('link.txt', files)).refused).toEqual({
      kind: 'outside',
      resolved: path.join(project, 'evals/link.txt'),
      realPath: path.join(outside, 'secret.txt'),
    });
    expect((await resolveInputFile('linked-folder/secret.txt', files)).refused).toMatchObject({
      kind: 'outside',
      realPath: path.join(outside, 'secret.txt'),
    });
  });

  it('reads a symlink that stays inside the project', async () => {
    await symlink(path.join(project, 'evals/inside.txt'), path.join(project, 'evals/alias.txt'));
    const resolved = await resolveInputFile('alias.txt', await lookup());
    expect(resolved).toMatchObject({ path: path.join(project, 'evals/alias.txt') });
    expect(resolved.refused).toBeUndefined();
  });

  it.skipIf(process.platform !== 'linux')('refuses /proc, /sys and /dev paths', async () => {
    const files = await lookup();
    expect((await resolveInputFile('/proc/self/environ', files)).refused).toMatchObject({
      kind: 'system',
      folder: '/proc',
    });
    expect((await resolveInputFile('/dev/null', files)).refused).toMatchObject({
      kind: 'system',
      folder: '/dev',
    });
    // A link in the project to the environment of the process that reads it.
    await symlink('/proc/self/environ', path.join(project, 'evals/env.txt'));
    expect((await resolveInputFile('env.txt', files)).refused).toMatchObject({
      kind: 'system',
      folder: '/proc',
    });
  });

  it('reads a file in a folder of allowed_file_roots', async () => {
    const resolved = await resolveInputFile(
      path.join(outside, 'secret.txt'),
      await lookup([outside]),
    );
    expect(resolved).toMatchObject({ path: path.join(outside, 'secret.txt') });
  });

  it('keeps "not found" for a path that does not exist, inside or out', async () => {
    const resolved = await resolveInputFile('../../outside/none.txt', await lookup());
    expect(resolved).toEqual({
      tried: [path.join(outside, 'none.txt'), path.join(path.dirname(scratch), 'outside/none.txt')],
    });
  });
});
