import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copilotUsageFile, createCopilotCliReader, readUsageFile } from './copilot-cli-reader.js';

// Real `copilot --output-format json` output (1.0.102, prompt on stdin, provider mode with
// COPILOT_OFFLINE) against a scripted OpenAI chat-completions server, and the usage file its
// `--usage-output-file` wrote.
const fixtureFile = (name: string) =>
  fileURLToPath(new URL(`./__fixtures__/${name}`, import.meta.url));
const fixture = (name: string) =>
  readFileSync(fixtureFile(name), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'copilot-reader-'));
  await copyFile(fixtureFile('usage.json'), copilotUsageFile({ root }));
});
afterAll(() => rm(root, { recursive: true, force: true }));

function read(
  events: unknown[],
  exit: { exitCode?: number; stderr: string } = { exitCode: 0, stderr: '' },
  withHome = false,
) {
  const reader = createCopilotCliReader(withHome ? { home: { root } } : undefined);
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  for (const [index, event] of events.entries()) reader.push(event, new Date(start + index * 100));
  return reader.finish(exit);
}

const toolCalls = (outcome: ReturnType<typeof read>) =>
  outcome.trace
    .filter((event) => event.type === 'tool_call')
    .map((event) => `${event.name}/${event.rawName}`);

describe('createCopilotCliReader', () => {
  it('turns tool executions into canonical calls and results timed by Copilot, the last message into the answer', () => {
    const outcome = read(fixture('success.jsonl'));
    expect(outcome.failure).toBeUndefined();
    expect(outcome.answer).toBe('All done: file written.');
    expect(toolCalls(outcome)).toEqual([
      'shell/bash',
      'read_file/view',
      'write_file/create',
      'edit_file/edit',
    ]);
    const shell = outcome.trace.filter((event) => event.rawName === 'bash');
    expect(shell[0]).toMatchObject({
      type: 'tool_call',
      id: 'call_chatcmpl-1',
      input: { command: 'echo hello > out.txt && cat out.txt' },
    });
    expect(shell[1]).toMatchObject({
      type: 'tool_result',
      id: 'call_chatcmpl-1',
      output: 'hello\n<shellId: 0 completed with exit code 0>',
      metadata: { status: 'completed', exit_code: 0 },
    });
    // Copilot's own timestamps, not the time the line was read (2026-01-01 in this test).
    expect(shell[0]?.timestamp.startsWith('2026-11-26T05:17')).toBe(true);
    const duration = shell[1]?.metadata?.duration_ms as number;
    expect(duration).toBe(Date.parse(shell[1]!.timestamp) - Date.parse(shell[0]!.timestamp));
    expect(duration).toBeGreaterThan(0);
    // A model step per turn, and the final text as a message.
    expect(outcome.trace.filter((event) => event.type === 'model_step')).toHaveLength(5);
    expect(outcome.trace.at(-1)).toMatchObject({
      type: 'message',
      text: 'All done: file written.',
    });
  });

  it('names search tools canonically and keeps a failed call error and a command exit code', () => {
    const outcome = read(fixture('tools.jsonl'));
    expect(toolCalls(outcome)).toEqual([
      'search/grep',
      'search/glob',
      'edit_file/edit',
      'shell/bash',
    ]);
    const results = outcome.trace.filter((event) => event.type === 'tool_result');
    expect(results[2]).toMatchObject({
      name: 'edit_file',
      output: 'Path not absolute',
      metadata: { status: 'error' },
    });
    expect(results[3]).toMatchObject({ metadata: { status: 'completed', exit_code: 3 } });
  });

  it('has no answer when the last turn says nothing', () => {
    const outcome = read(fixture('no-answer.jsonl'));
    expect(outcome.answer).toBeUndefined();
    expect(outcome.failure).toBeUndefined();
    expect(toolCalls(outcome)).toEqual(['shell/bash']);
  });

  it('classifies refused credentials and an unknown model from session.error', () => {
    const auth = read(fixture('auth-refused.jsonl'), { exitCode: 1, stderr: '' });
    expect(auth.failure).toEqual({
      kind: 'auth',
      detail: expect.stringMatching(
        /^Authentication failed with provider at http:\/\/127\.0\.0\.1:\d+\/v1 \(HTTP 401\)\.$/,
      ),
    });
    expect(auth.answer).toBeUndefined();
    expect(auth.trace.at(-1)).toMatchObject({ type: 'error' });
    const model = read(fixture('model-not-found.jsonl'), { exitCode: 1, stderr: '' });
    expect(model.failure).toEqual({
      kind: 'model_not_found',
      detail: expect.stringContaining("Model 'gpt-4.1' not found on provider"),
    });
  });

  it('reports a failed exit without an error event by the last line of stderr', () => {
    const outcome = read([], { exitCode: 1, stderr: 'boom\nError: unauthorized (401)\n' });
    expect(outcome.failure).toEqual({ kind: 'auth', detail: 'Error: unauthorized (401)' });
    expect(read([], { exitCode: 2, stderr: '' }).failure).toEqual({ kind: 'agent_error' });
  });

  it('reads tokens and the model from the usage file of the call home', () => {
    const outcome = read(fixture('tools.jsonl'), undefined, true);
    expect(outcome.usage).toEqual({
      inputTokens: 600,
      outputTokens: 150,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      totalTokens: 750,
    });
    expect(outcome.model).toBe('gpt-4.1');
    expect(read(fixture('tools.jsonl')).usage).toBeUndefined();
  });

  it('skips lines that are not events and a usage file that is missing or broken', () => {
    const outcome = read([null, 42, 'text', { type: 'tool.execution_complete' }]);
    expect(outcome.trace).toMatchObject([{ type: 'tool_result', name: 'unknown' }]);
    expect(readUsageFile(path.join(root, 'missing.json'))).toBeUndefined();
    expect(readUsageFile(fixtureFile('success.jsonl'))).toBeUndefined();
  });

  it('has no running totals: Copilot CLI writes its usage to a file when it finishes', () => {
    expect(createCopilotCliReader().spent).toBeUndefined();
  });
});
