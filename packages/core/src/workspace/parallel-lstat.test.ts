import { execFile } from 'node:child_process';
import { lstatSync, mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { lstatPaths, parallelLstatReady } from './parallel-lstat.js';
import { tempFolder } from './test-support/workspace-fixtures.js';

const cleanup: string[] = [];
afterEach(() => {
  for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** 3,000 paths: files, folders, links, missing ones and paths through a file. */
function manyPaths(): string[] {
  const root = tempFolder('lstat-paths');
  cleanup.push(root);
  const paths: string[] = [];
  for (let d = 0; d < 30; d++) {
    const dir = join(root, `d${d}`);
    mkdirSync(dir);
    paths.push(dir);
    for (let f = 0; f < 90; f++) {
      const file = join(dir, `f${f}.txt`);
      writeFileSync(file, 'x'.repeat(f), { mode: f % 2 === 0 ? 0o644 : 0o755 });
      // Each time field of its own: modification time in the past, change time now.
      if (f % 3 === 0) utimesSync(file, 1_000_000 + f, 2_000_000 + f);
      paths.push(file);
    }
    symlinkSync('f0.txt', join(dir, 'link'));
    paths.push(join(dir, 'link'), join(dir, 'missing.txt'), join(dir, 'f1.txt', 'through-a-file'));
  }
  return paths;
}

function fields(stats: ReturnType<typeof lstatPaths>[number]) {
  if (stats === undefined || stats === 'retry') return stats;
  return {
    mode: stats.mode,
    ino: stats.ino,
    size: stats.size,
    mtimeMs: stats.mtimeMs,
    ctimeMs: stats.ctimeMs,
    kind: [stats.isFile(), stats.isDirectory(), stats.isSymbolicLink()],
  };
}

/** What `lstatSync` says of a path; undefined where nothing is there or a file is a folder of it. */
function reference(path: string) {
  try {
    return fields(lstatSync(path, { throwIfNoEntry: false }));
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ENOTDIR');
    return undefined;
  }
}

describe('lstatPaths', () => {
  it('gives what lstatSync gives for each path, split with the helper thread', async () => {
    const paths = manyPaths();
    const expected = paths.map(reference);
    expect(expected.filter((each) => each === undefined)).toHaveLength(60);
    expect(await parallelLstatReady()).toBe(true);
    // Twice: the second call does not send the list again.
    for (let round = 0; round < 2; round++) {
      expect(lstatPaths(paths, 100).map(fields)).toEqual(expected);
    }
    // A different list of the same length is not taken for the first; more lists than the
    // helper keeps, each asked for twice, come back right.
    const lists = Array.from({ length: 10 }, (_, n) => [
      ...paths.slice(n * 10),
      ...paths.slice(0, n * 10),
    ]);
    for (let round = 0; round < 2; round++) {
      for (const [n, list] of lists.entries()) {
        expect(lstatPaths(list, 100).map(fields)).toEqual([
          ...expected.slice(n * 10),
          ...expected.slice(0, n * 10),
        ]);
      }
    }
    const reversed = [...paths].reverse();
    expect(lstatPaths(reversed, 100).map(fields)).toEqual([...expected].reverse());
  });

  it('does short lists on this thread alone, with the same results', () => {
    const paths = manyPaths().slice(0, 50);
    expect(lstatPaths(paths).map(fields)).toEqual(paths.map(reference));
  });

  it('leaves nothing that keeps a process running', async () => {
    const module = fileURLToPath(
      new URL('../../dist/workspace/parallel-lstat.js', import.meta.url),
    );
    const script = `
const { lstatPaths, parallelLstatReady } = await import(${JSON.stringify(module)});
const paths = Array.from({ length: 3000 }, (_, i) => '/nonexistent-' + i);
if (!(await parallelLstatReady())) process.exit(3);
process.stdout.write(String(lstatPaths(paths).filter((each) => each === undefined).length));
`;
    // Without the helper letting go, the process would never end (killed after 20 s). Run with
    // `--input-type=module`, which the helper must not take from it.
    const result = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--input-type=module', '-e', script],
        { timeout: 20_000 },
        (error, stdout) => resolve({ code: error ? (error.code as number | null) : 0, stdout }),
      );
    });
    expect(result).toEqual({ code: 0, stdout: '3000' });
  });
});
