import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createOpencodeReader } from './opencode-reader.js';

// Real `opencode run --format json` output (1.18.33) against a scripted chat-completions server:
// gpt-4.1 is offered `edit` and `write`, gpt-5 `apply_patch` in their place.
const fixture = (name: string) =>
  readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);

function read(
  events: unknown[],
  exit: { exitCode?: number; stderr: string } = { exitCode: 0, stderr: '' },
) {
  const reader = createOpencodeReader();
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  for (const [index, event] of events.entries()) reader.push(event, new Date(start + index * 100));
  return reader.finish(exit);
}

const toolCalls = (outcome: ReturnType<typeof read>) =>
  outcome.trace
    .filter((event) => event.type === 'tool_call')
    .map((event) => `${event.name}/${event.rawName}`);

describe('createOpencodeReader', () => {
  it('turns tool parts into canonical calls and results timed by opencode, the last text into the answer', () => {
    const events = fixture('success-edit-write.jsonl');
    const outcome = read(events);
    expect(outcome.failure).toBeUndefined();
    expect(outcome.answer).toBe('All done here.');
    expect(toolCalls(outcome)).toEqual([
      'shell/bash',
      'read_file/read',
      'edit_file/edit',
      'search/grep',
      'write_file/write',
      'search/glob',
      'todo/todowrite',
    ]);
    const edit = outcome.trace.filter((event) => event.rawName === 'edit');
    // The part's own time.start / time.end (ms), not the time the line was read.
    expect(edit[0]).toMatchObject({
      type: 'tool_call',
      timestamp: new Date(1795666117949).toISOString(),
      input: { filePath: 'a.txt', oldString: 'hi', newString: 'bye' },
    });
    expect(edit[1]).toMatchObject({
      type: 'tool_result',
      timestamp: new Date(1795666118129).toISOString(),
      output: 'Edit applied successfully.',
      metadata: { duration_ms: 180, status: 'completed' },
    });
    const shell = outcome.trace.find(
      (event) => event.type === 'tool_result' && event.rawName === 'bash',
    );
    expect(shell).toMatchObject({ output: 'hi\n', metadata: { exit_code: 0 } });
    // A failed tool call keeps its error as the result.
    const grep = outcome.trace.find(
      (event) => event.type === 'tool_result' && event.rawName === 'grep',
    );
    expect(grep).toMatchObject({
      output: 'ripgrep execution failed',
      metadata: { status: 'error' },
    });
    expect(outcome.trace.filter((event) => event.type === 'model_step')).toHaveLength(8);
    expect(outcome.warnings).toBeUndefined();
  });

  it('adds up the tokens of every step; a cost of 0 is left to the price table', () => {
    const outcome = read(fixture('success-edit-write.jsonl'));
    // Eight steps of 120 input and 30 output tokens each.
    expect(outcome.usage).toMatchObject({
      inputTokens: 960,
      outputTokens: 240,
      cachedInputTokens: 0,
      totalTokens: 1200,
    });
    expect(outcome.costUsd).toBeUndefined();
    const priced = read([
      { type: 'step_finish', part: { tokens: { input: 1, output: 2 }, cost: 0.25 } },
      { type: 'text', part: { text: 'ok' } },
      { type: 'step_finish', part: { tokens: { input: 3, output: 4 }, cost: 0.5 } },
    ]);
    expect(priced.costUsd).toBe(0.75);
    expect(priced.usage).toMatchObject({ inputTokens: 4, outputTokens: 6, totalTokens: 10 });
  });

  it('names apply_patch edit_file, or write_file when it only adds files, and a missing tool invalid', () => {
    const outcome = read(fixture('success-apply-patch.jsonl'));
    expect(toolCalls(outcome)).toEqual([
      'shell/bash',
      'read_file/read',
      'invalid/invalid',
      'search/grep',
      'edit_file/apply_patch',
      'write_file/apply_patch',
      'invalid/invalid',
      'search/glob',
      'todo/todowrite',
    ]);
    expect(outcome.answer).toBe('All done here.');
    expect(outcome.warnings).toEqual([
      "opencode's model called 2 tools opencode did not offer (edit, docs_lookup); offered: apply_patch, bash, glob, grep, invalid, read, skill, task, todowrite, webfetch; permission_mode, allowed_tools and denied_tools decide which tools opencode offers",
    ]);
  });

  it('classifies a refused key and an unknown model from the error event', () => {
    expect(read(fixture('auth-refused.jsonl'), { exitCode: 1, stderr: '' }).failure).toEqual({
      kind: 'auth',
      detail: '401 Incorrect API key provided: sk-sc***',
    });
    expect(read(fixture('model-not-found.jsonl'), { exitCode: 1, stderr: '' }).failure).toEqual({
      kind: 'model_not_found',
      detail: '404 The model `gpt-5` does not exist or you do not have access to it.',
    });
    expect(
      read([
        {
          type: 'error',
          error: { name: 'ProviderModelNotFoundError', data: { providerID: 'x', modelID: 'y' } },
        },
      ]).failure,
    ).toMatchObject({ kind: 'model_not_found' });
  });

  it('has no answer when the last step said nothing, even after text in an earlier step', () => {
    expect(read(fixture('no-answer.jsonl')).answer).toBeUndefined();
    const outcome = read([
      { type: 'step_start', part: {} },
      { type: 'text', part: { text: 'Let me look.' } },
      { type: 'step_finish', part: { reason: 'tool-calls' } },
      { type: 'step_start', part: {} },
      { type: 'step_finish', part: { reason: 'stop' } },
    ]);
    expect(outcome.answer).toBeUndefined();
    expect(outcome.failure).toBeUndefined();
  });

  it('reports a failed exit with the last line of stderr, and ignores what it does not know', () => {
    const outcome = read(['not an object', { type: 'something_new' }], {
      exitCode: 1,
      stderr: 'starting\nError: Unauthorized\n',
    });
    expect(outcome.trace).toEqual([]);
    expect(outcome.failure).toEqual({ kind: 'auth', detail: 'Error: Unauthorized' });
  });

  it('names an MCP tool mcp:<server>/<tool> from opencode <server>_<tool>', () => {
    const outcome = read([
      {
        type: 'tool_use',
        part: {
          tool: 'docs_lookup',
          callID: 'c1',
          state: { status: 'completed', input: { q: 'x' }, output: 'found' },
        },
      },
    ]);
    expect(outcome.trace.map((event) => [event.type, event.name, event.rawName])).toEqual([
      ['tool_call', 'mcp:docs/lookup', 'docs_lookup'],
      ['tool_result', 'mcp:docs/lookup', 'docs_lookup'],
    ]);
  });

  it('reports running totals after each step_finish', () => {
    const reader = createOpencodeReader();
    const totals: number[] = [];
    for (const event of fixture('success-edit-write.jsonl')) {
      reader.push(event, new Date());
      const spent = reader.spent?.();
      if (spent?.usage.totalTokens !== totals.at(-1) && spent?.usage.totalTokens !== undefined) {
        totals.push(spent.usage.totalTokens);
      }
    }
    // Eight steps of 120 + 30 tokens, each reported when it finished; opencode priced none ($0).
    expect(totals).toEqual([150, 300, 450, 600, 750, 900, 1050, 1200]);
    const spent = reader.spent?.();
    expect(spent?.usage).toMatchObject({ inputTokens: 960, outputTokens: 240, totalTokens: 1200 });
    expect(spent?.costUsd).toBeUndefined();
  });
});
