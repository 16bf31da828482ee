import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createJsonlWriter } from './jsonl-writer.js';
import { fromResultRecord, ResultFileLineError, readResultFile } from './read-result-file.js';
import { makeResult } from './test-support/make-result.js';
import { toResultRecord } from './to-result-record.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('readResultFile and fromResultRecord', () => {
  it('read back what the JSONL writer wrote, eval_file and run included', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-read-'));
    const file = path.join(dir, 'out.jsonl');
    const run = { id: 'abc', cases: 2, shard: '1/2' };
    const writer = await createJsonlWriter(file, {
      evalFileName: (absolute) => path.basename(absolute),
      run,
    });
    const results = [
      makeResult({ usage: { inputTokens: 3, outputTokens: 4 }, costUsd: 0.5 }),
      makeResult({ evalId: 'case-2', passed: false, score: 0, error: 'boom' }),
    ];
    for (const result of results) await writer.write(result);
    await writer.close();

    const lines = await readResultFile(file);
    expect(lines.map((line) => line.line)).toEqual([1, 2]);
    expect(lines[0]!.record).toMatchObject({ eval_file: 'suite.yaml', run });
    const back = lines.map(({ record }) => fromResultRecord(record, '/repo/evals/suite.yaml'));
    // Converting again gives the same line: nothing the reports read was lost.
    for (const [index, result] of back.entries()) {
      expect(toResultRecord(result)).toEqual(toResultRecord(results[index]!));
    }
    expect(back[0]!.usage).toEqual({ inputTokens: 3, outputTokens: 4 });
  });

  it('names the line that is not a result', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-read-'));
    const file = path.join(dir, 'bad.jsonl');
    await writeFile(file, `${JSON.stringify(toResultRecord(makeResult()))}\n\n{"eval_id": "x"}\n`);
    await expect(readResultFile(file)).rejects.toEqual(
      new ResultFileLineError(
        3,
        'missing timestamp, dataset, target, score, passed and 8 more fields',
      ),
    );
    await writeFile(file, 'not json\n');
    await expect(readResultFile(file)).rejects.toMatchObject({
      line: 1,
      column: 1,
      message: `invalid JSON: Unexpected token 'o', "not json" is not valid JSON`,
    });
    await writeFile(file, '\t{"eval_id": 1 2}\n');
    const error = (await readResultFile(file).catch(
      (error: unknown) => error,
    )) as ResultFileLineError;
    expect(error.describe('bad.jsonl')).toBe(
      "bad.jsonl:1:16: invalid JSON: Expected ',' or '}' after property value",
    );
    expect(await readFile(file, 'utf8')).toBe('\t{"eval_id": 1 2}\n');
  });

  it('checks every line against the result-line schema, naming the field and the problem', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-read-'));
    const file = path.join(dir, 'bad.jsonl');
    const good = toResultRecord(makeResult());
    const problem = async (...lines: unknown[]) => {
      await writeFile(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
      const error = await readResultFile(file).catch((error: unknown) => error);
      expect(error).toBeInstanceOf(ResultFileLineError);
      return (error as ResultFileLineError).describe('bad.jsonl');
    };
    expect(await problem(good, { ...good, evaluator_results: 'oops' })).toBe(
      'bad.jsonl:2: evaluator_results: expected an array, got a string',
    );
    expect(await problem({ ...good, score: '1', passed: 1 })).toBe(
      'bad.jsonl:1: score: expected a number, got a string; passed: expected true or false, got a number',
    );
    const { duration_ms: _, ...noDuration } = good;
    expect(await problem(noDuration)).toBe('bad.jsonl:1: duration_ms: missing (expected a number)');
    expect(await problem([good])).toBe(
      'bad.jsonl:1: expected a result line (a JSON object), got an array',
    );
    const grader = good.evaluator_results[0]!;
    expect(
      await problem({
        ...good,
        attempts: 1.5,
        evaluator_results: [{ ...grader, verdict: 'great', members: [{ name: 'm' }] }],
        run: { id: 'r', cases: -1 },
        trace_summary: 'none',
      }),
    ).toBe(
      'bad.jsonl:1: evaluator_results[0].verdict: expected one of "pass", "borderline", "fail", "error", got "great"; evaluator_results[0].members[0]: missing type, score, weight, verdict, hits and 2 more fields; attempts: expected a whole number, got a fraction; and 2 more problems',
    );
  });

  it('keeps keys it does not know, as written, and names a line that is not JSON first', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-read-'));
    const file = path.join(dir, 'out.jsonl');
    const newer = { sandbox: { files: 3 }, ...toResultRecord(makeResult()), turns: [] };
    await writeFile(file, `${JSON.stringify(newer)}\n`);
    const [read] = await readResultFile(file);
    expect(JSON.stringify(read!.record)).toBe(JSON.stringify(newer));

    // The first line is not a result line, the second is not JSON: the file is not JSONL at all.
    await writeFile(file, '{"eval_id":"one"}\nnot json\n');
    await expect(readResultFile(file)).rejects.toMatchObject({ line: 2, column: 1 });
  });

  it("writes a trace event's rawName as raw_name and reads it back", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-read-'));
    const file = path.join(dir, 'out.jsonl');
    const trace = [
      {
        type: 'tool_call' as const,
        timestamp: '2025-01-01T12:00:00.000Z',
        name: 'shell',
        rawName: 'Bash',
      },
    ];
    const record = toResultRecord(makeResult({ trace }), { includeTrace: true });
    await writeFile(file, `${JSON.stringify(record)}\n`);
    const [read] = await readResultFile(file);
    expect(read!.record.trace).toEqual([
      { type: 'tool_call', timestamp: '2025-01-01T12:00:00.000Z', name: 'shell', raw_name: 'Bash' },
    ]);
    expect(fromResultRecord(read!.record, '/repo/a.yaml').trace).toEqual(trace);
  });

  it("reads back a case's workspace summary", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-read-'));
    const file = path.join(dir, 'out.jsonl');
    const workspace = { filesChanged: 2, insertions: 7, deletions: 1, keptAt: '/tmp/ws-1' };
    await writeFile(file, `${JSON.stringify(toResultRecord(makeResult({ workspace })))}\n`);
    const [read] = await readResultFile(file);
    expect(read!.record.workspace).toEqual({
      files_changed: 2,
      insertions: 7,
      deletions: 1,
      kept_at: '/tmp/ws-1',
    });
    expect(fromResultRecord(read!.record, '/repo/a.yaml').workspace).toEqual(workspace);
  });

  it('drops a last line cut short when asked, and otherwise says it is incomplete', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-read-'));
    const file = path.join(dir, 'cut.jsonl');
    const whole = `${JSON.stringify(toResultRecord(makeResult()))}\n`;
    const cut = JSON.stringify(toResultRecord(makeResult({ evalId: 'case-2' }))).slice(0, 25);
    await writeFile(file, whole + cut);

    const torn: number[] = [];
    const lines = await readResultFile(file, { onTornLastLine: (line) => torn.push(line) });
    expect(lines.map(({ record }) => record.eval_id)).toEqual(['case-1']);
    expect(torn).toEqual([2]);

    const error = (await readResultFile(file).catch(
      (error: unknown) => error,
    )) as ResultFileLineError;
    expect(error.line).toBe(2);
    expect(error.message).toMatch(
      /^invalid JSON: .*; the last line is incomplete \(the run that wrote it was interrupted\)$/,
    );
  });

  it('keeps a whole last line without a newline, and refuses a line cut short before others', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-read-'));
    const file = path.join(dir, 'cut.jsonl');
    const line = JSON.stringify(toResultRecord(makeResult()));
    const onTornLastLine = () => {
      throw new Error('not torn');
    };
    await writeFile(file, `${line}\n${line}`);
    expect(await readResultFile(file, { onTornLastLine })).toHaveLength(2);

    // A line cut short and followed by a newline is not the end of an interrupted write.
    await writeFile(file, `${line}\n${line.slice(0, 25)}\n`);
    await expect(readResultFile(file, { onTornLastLine })).rejects.toMatchObject({
      line: 2,
      message: expect.not.stringContaining('incomplete'),
    });
    await writeFile(file, `${line.slice(0, 25)}\n${line}\n`);
    await expect(readResultFile(file, { onTornLastLine })).rejects.toMatchObject({ line: 1 });
  });
});
