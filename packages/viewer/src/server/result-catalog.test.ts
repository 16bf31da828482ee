import { appendFile, mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resultLine } from '../test-support/result-line.js';
import { ResultCatalog } from './result-catalog.js';
import { ResultFileIndex } from './result-file-index.js';

describe('following result files', () => {
  let dir: string;
  let file: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'agentv-viewer-catalog-'));
    file = path.join(dir, 'run.jsonl');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads up to the size it was given, so a line appended meanwhile is not read twice', async () => {
    await writeFile(file, resultLine('case-1') + resultLine('case-2'));
    const index = new ResultFileIndex(file, 'run.jsonl');
    const before = await stat(file);
    // The eval appends between the viewer's stat and its read.
    await appendFile(file, `${resultLine('case-3')}{"eval_id": 3}\n`);
    await index.update(before);
    expect(index.summary().cases).toBe(2);
    const after = await stat(file);
    expect(await index.replacedBy(after)).toBe(false);
    await index.update(after);
    expect(index.summary().cases).toBe(3);
    expect(index.summary().problems).toEqual([
      { line: 4, message: expect.stringContaining('timestamp') },
    ]);
    expect(await index.update(after)).toBe(false);
  });

  it('shows a rewritten file only once it is read whole, never empty or half-read', async () => {
    // Big enough to take several reads, so the pages could look in between.
    const lines = (count: number, prefix: string) =>
      Array.from({ length: count }, (_, at) => resultLine(`${prefix}-${at}`)).join('');
    await writeFile(file, lines(14_000, 'old'));
    const catalog = new ResultCatalog({ folders: [dir], files: [] }, dir);
    expect(await catalog.refresh()).toEqual(['run.jsonl']);
    expect(catalog.get('run.jsonl')?.summary().cases).toBe(14_000);
    const smaller = lines(12_000, 'new');
    expect(smaller.length).toBeGreaterThan(3 << 20);
    await writeFile(file, smaller);
    const seen = new Set<number>();
    let refreshing = true;
    const looking = (async () => {
      while (refreshing) {
        seen.add(catalog.get('run.jsonl')?.summary().cases ?? -1);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    expect(await catalog.refresh()).toEqual(['run.jsonl']);
    refreshing = false;
    await looking;
    seen.add(catalog.get('run.jsonl')?.summary().cases ?? -1);
    expect([...seen].sort((a, b) => a - b)).toEqual([12_000, 14_000]);
  });

  it('a file a new run started again is read from the start, even once it is longer', async () => {
    await writeFile(file, resultLine('a') + resultLine('b'));
    const catalog = new ResultCatalog({ folders: [dir], files: [] }, dir);
    await catalog.refresh();
    // The same lengths, so only the first bytes tell the new run from the old one grown.
    const again = (id: string) => resultLine(id, { timestamp: '2026-02-02T12:00:00.000Z' });
    await writeFile(file, again('x') + again('y') + again('z'));
    expect(await catalog.refresh()).toEqual(['run.jsonl']);
    const run = JSON.parse(catalog.get('run.jsonl')!.runJson()) as { cases: { id: string[] } };
    expect(run.cases.id).toEqual(['x', 'y', 'z']);
  });

  it('a file written again through a temporary file is read from the start, though it only grew', async () => {
    // As `--resume` rewrites a result file: the same first lines, a new file renamed into place.
    await writeFile(file, resultLine('a') + resultLine('b', { passed: false }));
    const catalog = new ResultCatalog({ folders: [dir], files: [] }, dir);
    await catalog.refresh();
    const temporary = path.join(dir, 'run.jsonl.tmp');
    await writeFile(
      temporary,
      resultLine('a') + resultLine('c') + resultLine('b') + resultLine('d'),
    );
    await rename(temporary, file);
    expect(await catalog.refresh()).toEqual(['run.jsonl']);
    const run = JSON.parse(catalog.get('run.jsonl')!.runJson()) as { cases: { id: string[] } };
    expect(run.cases.id).toEqual(['a', 'c', 'b', 'd']);
    expect(catalog.get('run.jsonl')!.summary().problems).toEqual([]);
  });

  it('a torn last line is not a change until it is whole', async () => {
    await writeFile(file, resultLine('a'));
    const catalog = new ResultCatalog({ folders: [dir], files: [] }, dir);
    await catalog.refresh();
    const line = resultLine('b');
    await appendFile(file, line.slice(0, 30));
    expect(await catalog.refresh()).toEqual([]);
    expect(await catalog.refresh()).toEqual([]);
    await appendFile(file, line.slice(30));
    expect(await catalog.refresh()).toEqual(['run.jsonl']);
    expect(catalog.get('run.jsonl')!.summary().cases).toBe(2);
  });

  it('a file that shrank is read again from the start', async () => {
    await writeFile(file, resultLine('a') + resultLine('b') + resultLine('c'));
    const catalog = new ResultCatalog({ folders: [dir], files: [] }, dir);
    await catalog.refresh();
    await writeFile(file, resultLine('z'));
    expect(await catalog.refresh()).toEqual(['run.jsonl']);
    const run = JSON.parse(catalog.get('run.jsonl')!.runJson()) as { cases: { id: string[] } };
    expect(run.cases.id).toEqual(['z']);
  });
});
