import { readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseBatchOutput } from './parse-batch-output.js';
import { catchError } from './test-support/catch-error.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentv-batch-parse-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The case index `parseBatchOutput` takes: each id with its place in the batch. */
const cases = (...ids: string[]) => new Map(ids.map((id, index) => [id, index]));

async function output(content: string): Promise<string> {
  const file = join(dir, 'output.jsonl');
  await writeFile(file, content);
  return file;
}

describe('parseBatchOutput', () => {
  it('accepts a byte-order mark at the start of the file', async () => {
    const file = await output('\uFEFF{"id":"a","text":"x"}\n{"id":"b","text":"y"}\r\n');
    const responses = await parseBatchOutput(file, cases('a', 'b'));
    expect(responses.map((response) => response.text)).toEqual(['x', 'y']);
  });

  it('says what is wrong with the output in plain words', async () => {
    const file = await output('{"id":"a","text":"x"}\n');
    const error = (await catchError(() => parseBatchOutput(file, cases('a', 'b', 'c')))) as Error;
    expect(error.message).toBe('batch output: no line for 2 of 3 requested case(s): b, c');
  });

  it('closes the output file when parsing fails', async () => {
    const file = await output('{"id":"a","text":"x"}\nnot json\n');
    const openFiles = () => readdirSync('/proc/self/fd').length;
    const before = openFiles();
    for (let attempt = 0; attempt < 5; attempt++) {
      await catchError(() => parseBatchOutput(file, cases('a')));
    }
    // Destroyed streams close on libuv's threads: wait for that, up to 5 s.
    const deadline = Date.now() + 5000;
    while (openFiles() > before && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(openFiles()).toBeLessThanOrEqual(before);
  });
});
