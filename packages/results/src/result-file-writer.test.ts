import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createResultFileWriter } from './result-file-writer.js';
import { makeResult } from './test-support/make-result.js';

const run = promisify(execFile);
// Mounting a small tmpfs (a disk that really fills up) needs root, as CI has.
const cannotMount = process.getuid?.() !== 0 && !process.env.CI;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-writer-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const body = (result: { evalId: string; candidateAnswer: string }) =>
  JSON.stringify({ eval_id: result.evalId, answer: result.candidateAnswer });
const line = (result: { evalId: string; candidateAnswer: string }) => `${body(result)}\n`;

// Each line's newline written by `render`, or by the writer (`entryEnd`), as JSONL is written.
const WAYS = [
  ['with the newline in each entry', (file: string) => createResultFileWriter(file, line)],
  ['with entryEnd', (file: string) => createResultFileWriter(file, body, { entryEnd: '\n' })],
] as const;

describe('createResultFileWriter when writing fails', () => {
  it.skipIf(!existsSync('/dev/full'))(
    'rejects with the file system error, then rejects every later write without trying',
    async () => {
      const writer = await createResultFileWriter('/dev/full', line);
      const first = await writer.write(makeResult()).catch((error: unknown) => error);
      expect((first as NodeJS.ErrnoException).code).toBe('ENOSPC');
      await expect(writer.write(makeResult({ evalId: 'later' }))).rejects.toBe(first);
      expect(writer.written).toBe(0);
      await writer.close();
    },
  );

  it.skipIf(cannotMount).each(WAYS)(
    'keeps the entries that fit whole on a full disk and cuts back the one that did not, %s',
    async (_way, open) => {
      const disk = path.join(dir, 'disk');
      await mkdir(disk);
      await run('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', disk]);
      try {
        const writer = await open(path.join(disk, 'out.jsonl'));
        // Ten 10 KB entries in one turn go out in one write, which the disk cuts short.
        const answer = 'x'.repeat(10_000);
        const outcomes = await Promise.allSettled(
          Array.from({ length: 10 }, (_, index) =>
            writer.write(makeResult({ evalId: `case-${index}`, candidateAnswer: answer })),
          ),
        );
        await writer.close();
        const saved = outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
        expect(saved).toBeGreaterThan(0);
        expect(saved).toBeLessThan(10);
        // The saved writes are the first ones; every other one failed with the disk's error.
        expect(outcomes.slice(0, saved).every((o) => o.status === 'fulfilled')).toBe(true);
        for (const outcome of outcomes.slice(saved)) {
          expect(outcome).toMatchObject({ status: 'rejected', reason: { code: 'ENOSPC' } });
        }
        expect(writer.written).toBe(saved);
        const text = await readFile(path.join(disk, 'out.jsonl'), 'utf8');
        expect(text.endsWith('\n')).toBe(true);
        const ids = text
          .trimEnd()
          .split('\n')
          .map((row) => JSON.parse(row).eval_id);
        expect(ids).toEqual(Array.from({ length: saved }, (_, index) => `case-${index}`));
      } finally {
        await run('umount', ['-l', disk]);
      }
    },
  );
});

describe('createResultFileWriter with append', () => {
  it('starts on a line of its own when the file does not end with a newline', async () => {
    const file = path.join(dir, 'out.jsonl');
    await writeFile(file, '{"eval_id":"old"}');
    const writer = await createResultFileWriter(file, line, { append: true });
    await writer.write(makeResult({ evalId: 'new', candidateAnswer: 'a' }));
    await writer.write(makeResult({ evalId: 'next', candidateAnswer: 'b' }));
    await writer.close();
    expect(await readFile(file, 'utf8')).toBe(
      '{"eval_id":"old"}\n{"eval_id":"new","answer":"a"}\n{"eval_id":"next","answer":"b"}\n',
    );
    expect(writer.written).toBe(2);
  });
});

describe('createResultFileWriter', () => {
  it.each(WAYS)(
    'writes every entry byte for byte, small and large, in one turn and across turns, %s',
    async (_way, open) => {
      const file = path.join(dir, 'out.jsonl');
      const writer = await open(file);
      // Text of every width in UTF-8, and entries past what one write of small entries holds.
      const answers = ['é 😀 ✓', 'x'.repeat(300_000), '中文', 'y'.repeat(2_000_000), 'z'];
      const first = answers.map((answer, index) =>
        writer.write(makeResult({ evalId: `case-${index}`, candidateAnswer: answer })),
      );
      await Promise.all(first);
      await writer.write(makeResult({ evalId: 'later', candidateAnswer: '\u2028 ok' }));
      await writer.close();
      const expected = [
        ...answers.map((answer, index) =>
          line({ evalId: `case-${index}`, candidateAnswer: answer }),
        ),
        line({ evalId: 'later', candidateAnswer: '\u2028 ok' }),
      ].join('');
      expect(await readFile(file, 'utf8')).toBe(expected);
      expect(writer.written).toBe(answers.length + 1);
    },
  );

  it('ends each entry with an entryEnd of several bytes, small entries and large', async () => {
    const file = path.join(dir, 'out.txt');
    const writer = await createResultFileWriter(file, body, { entryEnd: '\r\n' });
    const answers = ['é', 'x'.repeat(2_000_000), '😀'];
    await Promise.all(
      answers.map((answer, index) =>
        writer.write(makeResult({ evalId: `case-${index}`, candidateAnswer: answer })),
      ),
    );
    await writer.close();
    expect(await readFile(file, 'utf8')).toBe(
      answers
        .map((answer, index) => `${body({ evalId: `case-${index}`, candidateAnswer: answer })}\r\n`)
        .join(''),
    );
  });
});
