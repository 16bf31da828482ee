import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createJsonlWriter } from './jsonl-writer.js';
import { makeResult } from './test-support/make-result.js';

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'agentv-jsonl-'));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function readLines(filePath: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(filePath, 'utf8');
  expect(text === '' || text.endsWith('\n')).toBe(true);
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

const trace = [
  { type: 'tool_call' as const, timestamp: '2025-01-01T12:00:00.000Z', name: 'search' },
];

describe('createJsonlWriter', () => {
  it('creates parent directories and writes each line before close', async () => {
    const filePath = path.join(directory, '.agentv', 'results', 'run.jsonl');
    const writer = await createJsonlWriter(filePath);
    expect(writer.filePath).toBe(filePath);
    expect(await readFile(filePath, 'utf8')).toBe('');

    await writer.write(makeResult({ evalId: 'first' }));
    expect((await readLines(filePath)).map((line) => line.eval_id)).toEqual(['first']);

    await writer.write(makeResult({ evalId: 'second' }));
    expect((await readLines(filePath)).map((line) => line.eval_id)).toEqual(['first', 'second']);
    await writer.close();
  });

  it('keeps concurrent writes whole and in call order', async () => {
    const filePath = path.join(directory, 'run.jsonl');
    const writer = await createJsonlWriter(filePath);
    // Lines larger than one write chunk interleave unless writes are serialised.
    const big = 'x'.repeat(1_100_000);
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        writer.write(makeResult({ evalId: `case-${index}`, candidateAnswer: `${index}${big}` })),
      ),
    );
    await writer.close();
    const lines = await readLines(filePath);
    expect(lines.map((line) => line.eval_id)).toEqual(
      Array.from({ length: 20 }, (_, index) => `case-${index}`),
    );
    expect(lines.every((line, index) => line.candidate_answer === `${index}${big}`)).toBe(true);
  });

  it('writes trace_summary but no trace by default, null without a trace', async () => {
    const filePath = path.join(directory, 'run.jsonl');
    const writer = await createJsonlWriter(filePath);
    await writer.write(makeResult({ evalId: 'traced', trace }));
    await writer.write(makeResult({ evalId: 'untraced' }));
    await writer.close();
    const [traced, untraced] = await readLines(filePath);
    expect(traced).not.toHaveProperty('trace');
    expect(traced?.trace_summary).toEqual({
      eventCount: 1,
      toolNames: ['search'],
      toolCallsByName: { search: 1 },
      errorCount: 0,
    });
    expect(untraced?.trace_summary).toBeNull();
  });

  it('writes the full trace with includeTrace', async () => {
    const filePath = path.join(directory, 'run.jsonl');
    const writer = await createJsonlWriter(filePath, { includeTrace: true });
    await writer.write(makeResult({ trace }));
    await writer.close();
    const [line] = await readLines(filePath);
    expect(line?.trace).toEqual(trace);
    expect(line?.output_messages).toBeNull();
  });

  it('writes a 16 MiB answer that doubles when escaped whole, on one line', async () => {
    const answer = '"'.repeat(16 * 1024 * 1024);
    const filePath = path.join(directory, 'big.jsonl');
    const writer = await createJsonlWriter(filePath);
    await writer.write(makeResult({ evalId: 'big', candidateAnswer: answer }));
    await writer.close();
    const lines = await readLines(filePath);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.candidate_answer).toBe(answer);
  });

  it('replaces an existing file', async () => {
    const filePath = path.join(directory, 'run.jsonl');
    await writeFile(filePath, '{"old": true}\n');
    const writer = await createJsonlWriter(filePath);
    await writer.write(makeResult({ evalId: 'new' }));
    await writer.close();
    expect((await readLines(filePath)).map((line) => line.eval_id)).toEqual(['new']);
  });

  it('finishes pending writes on close and refuses writes after it', async () => {
    const filePath = path.join(directory, 'run.jsonl');
    const writer = await createJsonlWriter(filePath);
    const pending = writer.write(makeResult({ evalId: 'pending' }));
    await writer.close();
    await pending;
    expect((await readLines(filePath)).map((line) => line.eval_id)).toEqual(['pending']);
    await expect(writer.write(makeResult({ evalId: 'late' }))).rejects.toThrow(
      `cannot write result "late": ${filePath} is closed`,
    );
    await writer.close();
  });
});
