import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createCodexReader } from './codex-reader.js';

// Real `codex exec --json` output (0.169.0) against a scripted Responses server.
const fixture = (name: string) =>
  readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);

function read(
  events: unknown[],
  exit: { exitCode?: number; stderr: string } = { exitCode: 0, stderr: '' },
) {
  const reader = createCodexReader();
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  for (const [index, event] of events.entries()) reader.push(event, new Date(start + index * 100));
  return reader.finish(exit);
}

describe('createCodexReader', () => {
  it('turns commands and file changes into canonical tool calls with their results and durations', () => {
    const outcome = read(fixture('codex-success.jsonl'));
    expect(outcome.answer).toBe('Changed a.js and added b.js.');
    expect(outcome.failure).toBeUndefined();
    const calls = outcome.trace.filter((event) => event.type === 'tool_call');
    expect(calls.map((event) => [event.name, event.rawName])).toEqual([
      ['shell', 'command_execution'],
      ['edit_file', 'file_change'],
      ['write_file', 'file_change'],
      ['shell', 'command_execution'],
    ]);
    expect(calls[0]!.input).toEqual({
      command: '/bin/bash -lc "printf \\"export const a = 1;\\\\n\\" > a.js && cat a.js"',
    });
    const results = outcome.trace.filter((event) => event.type === 'tool_result');
    expect(results[0]).toMatchObject({
      id: 'item_1',
      name: 'shell',
      output: 'export const a = 1;\n',
      metadata: { exit_code: 0, status: 'completed', duration_ms: 100 },
    });
    expect(results[3]).toMatchObject({ metadata: { exit_code: 3, status: 'failed' } });
    expect(outcome.trace.at(-1)).toMatchObject({
      type: 'message',
      text: 'Changed a.js and added b.js.',
    });
    // Codex's warning about an unknown model is kept as an error event, not a failure.
    expect(outcome.trace[0]).toMatchObject({
      type: 'error',
      text: expect.stringContaining('Model metadata'),
    });
  });

  it('adds up the usage of every turn', () => {
    const turn = {
      type: 'turn.completed',
      usage: { input_tokens: 10, cached_input_tokens: 4, output_tokens: 3 },
    };
    const outcome = read([
      turn,
      turn,
      { type: 'item.completed', item: { type: 'agent_message', text: 'ok' } },
    ]);
    expect(outcome.usage).toEqual({
      inputTokens: 20,
      cachedInputTokens: 8,
      outputTokens: 6,
      totalTokens: 26,
    });
  });

  it('classifies a refused key and an unknown model from the failed turn', () => {
    expect(read(fixture('codex-401.jsonl'), { exitCode: 1, stderr: '' }).failure).toMatchObject({
      kind: 'auth',
      detail: expect.stringContaining('401 Unauthorized'),
    });
    expect(read(fixture('codex-404.jsonl'), { exitCode: 1, stderr: '' }).failure).toMatchObject({
      kind: 'model_not_found',
      detail: expect.stringContaining('`gpt-nope` does not exist'),
    });
  });

  it('reports a failed exit with the last error, and no answer when none came', () => {
    const outcome = read([{ type: 'error', message: 'stream disconnected before completion' }], {
      exitCode: 1,
      stderr: '',
    });
    expect(outcome.answer).toBeUndefined();
    expect(outcome.failure).toEqual({
      kind: 'agent_error',
      detail: 'stream disconnected before completion',
    });
    expect(read([{ type: 'turn.completed', usage: { input_tokens: 1 } }]).answer).toBeUndefined();
  });

  it('names an MCP tool mcp:<server>/<tool> and ignores what it does not know', () => {
    const item = {
      id: 'm1',
      type: 'mcp_tool_call',
      server: 'docs',
      tool: 'lookup',
      arguments: { q: 'x' },
      status: 'completed',
    };
    const outcome = read([
      'not an object',
      { type: 'something.new' },
      { type: 'item.started', item },
      { type: 'item.completed', item: { ...item, result: { content: 'found' } } },
    ]);
    expect(outcome.trace.map((event) => [event.type, event.name, event.rawName])).toEqual([
      ['tool_call', 'mcp:docs/lookup', 'docs.lookup'],
      ['tool_result', 'mcp:docs/lookup', 'docs.lookup'],
    ]);
  });

  it('has no running totals: `codex exec` reports usage once, when its turn completes', () => {
    expect(createCodexReader().spent).toBeUndefined();
  });
});
