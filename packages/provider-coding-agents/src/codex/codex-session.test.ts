import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readCodexSession } from './codex-session.js';

// session-rollout.jsonl: the rollout Codex 0.169.0 wrote for `codex exec "What do the notes say?"`
// against a scripted Responses server (apps/agentv/test/e2e/session-traces.test.ts records the
// same), its long instruction texts trimmed.
const fixture = (name: string) =>
  readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');

describe('readCodexSession', () => {
  it('reads a real rollout: canonical tool calls at their lines’ times, the answer, the usage', () => {
    const response = readCodexSession(fixture('session-rollout.jsonl'), 'rollout.jsonl');
    expect(response.text).toBe('The notes say hello.');
    expect(response.trace?.map((event) => [event.type, event.name])).toEqual([
      ['tool_call', 'shell'],
      ['tool_result', 'shell'],
      ['message', undefined],
    ]);
    expect(response.trace?.[0]).toMatchObject({
      timestamp: '2026-11-26T07:34:03.932Z',
      rawName: 'command_execution',
      id: 'call_1',
      input: { command: 'cat notes.txt' },
    });
    expect(response.trace?.[1]?.output).toContain('hello');
    expect(response.usage).toMatchObject({ inputTokens: 240, outputTokens: 60 });
    expect(response.durationMs).toBe(277);
    expect(response.warnings).toBeUndefined();
  });

  it('maps apply_patch, other tools and reasoning of a rollout', () => {
    const at = (second: number) => `2026-01-01T00:00:0${second}.000Z`;
    const line = (second: number, payload: unknown) =>
      JSON.stringify({ timestamp: at(second), type: 'response_item', payload });
    const text = [
      line(0, { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Plan.' }] }),
      line(1, {
        type: 'custom_tool_call',
        call_id: 'p1',
        name: 'apply_patch',
        input: '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch',
      }),
      line(2, { type: 'custom_tool_call_output', call_id: 'p1', output: 'Success.' }),
      line(3, {
        type: 'function_call',
        call_id: 'm1',
        name: 'docs__search',
        arguments: '{"q":"x"}',
      }),
      line(4, { type: 'function_call_output', call_id: 'm1', output: 'found' }),
      line(5, {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Done.' }],
      }),
    ].join('\n');
    const response = readCodexSession(text, 'r.jsonl');
    expect(response.trace?.map((event) => [event.type, event.name ?? event.text])).toEqual([
      ['model_step', 'Plan.'],
      ['tool_call', 'write_file'],
      ['tool_result', 'write_file'],
      ['tool_call', 'docs__search'],
      ['tool_result', 'docs__search'],
      ['message', 'Done.'],
    ]);
    expect(response.trace?.[3]?.input).toEqual({ q: 'x' });
    expect(response.trace?.[4]?.metadata?.duration_ms).toBe(1000);
    expect(response.text).toBe('Done.');
  });

  it('skips a line that is not JSON with a warning naming it', () => {
    const lines = fixture('session-rollout.jsonl').split('\n');
    lines.splice(3, 0, '{"truncated":');
    const response = readCodexSession(lines.join('\n'), 'rollout.jsonl');
    expect(response.text).toBe('The notes say hello.');
    expect(response.warnings).toEqual(['rollout.jsonl:4 is not a JSON object line; skipped']);
  });

  it('refuses a file of another format, naming it', () => {
    expect(() =>
      readCodexSession(
        readFileSync(new URL('../claude-code/__fixtures__/session.jsonl', import.meta.url), 'utf8'),
        'claude.jsonl',
      ),
    ).toThrow(/claude\.jsonl is not a Codex session rollout: none of its \d+ lines/);
    expect(() => readCodexSession('hello\nworld\n', 'notes.txt')).toThrow(
      'notes.txt:1 is not JSON: notes.txt is not a Codex session rollout',
    );
    expect(() => readCodexSession('', 'empty.jsonl')).toThrow('empty.jsonl is empty');
  });
});
