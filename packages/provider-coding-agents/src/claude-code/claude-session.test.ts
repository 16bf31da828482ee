import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readClaudeSession } from './claude-session.js';

// session.jsonl: the session Claude Code 2.1.332 wrote for `claude -p "What do the notes say?"`
// against a scripted Anthropic server (apps/agentv/test/e2e/session-traces.test.ts records the
// same), without its prompt snapshots and request-shape lines (the system prompt, ~250 KB).
const fixture = (name: string) =>
  readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');

describe('readClaudeSession', () => {
  it('reads a real session: canonical tool calls at their lines’ times, answer, usage and cost', () => {
    const response = readClaudeSession(fixture('session.jsonl'), 'session.jsonl');
    expect(response.text).toBe('The notes say hello.');
    expect(response.trace?.map((event) => [event.type, event.name])).toEqual([
      ['model_step', 'claude-sonnet-4-5'],
      ['tool_call', 'read_file'],
      ['tool_result', 'read_file'],
      ['model_step', 'claude-sonnet-4-5'],
      ['message', undefined],
    ]);
    expect(response.trace?.[1]).toMatchObject({ rawName: 'Read', id: 'toolu_msg_0001_0' });
    expect(response.trace?.[2]?.output).toContain('hello');
    expect(response.trace?.[2]?.metadata?.duration_ms).toBe(164);
    // Two model calls of 120 input and 30 output tokens each; the cost Claude Code computed.
    expect(response.usage).toEqual({ inputTokens: 240, outputTokens: 60, totalTokens: 300 });
    expect(response.costUsd).toBe(0.00162);
    expect(response.warnings).toBeUndefined();
  });

  it('skips lines that are not JSON with a warning naming them', () => {
    const lines = fixture('session.jsonl').split('\n');
    lines.splice(2, 0, 'garbage', '[1,2]');
    const response = readClaudeSession(lines.join('\n'), 's.jsonl');
    expect(response.text).toBe('The notes say hello.');
    expect(response.warnings).toEqual([
      's.jsonl:3 is not a JSON object line (nor 1 more: 4); skipped',
    ]);
  });

  it('refuses a file of another format, naming it', () => {
    const codex = readFileSync(
      new URL('../codex/__fixtures__/session-rollout.jsonl', import.meta.url),
      'utf8',
    );
    expect(() => readClaudeSession(codex, 'rollout.jsonl')).toThrow(
      /rollout\.jsonl is not a Claude Code session: none of its \d+ lines is a user or assistant message/,
    );
  });

  it('warns when the session holds no answer', () => {
    const user = JSON.stringify({
      type: 'user',
      timestamp: '2026-01-01T00:00:00Z',
      message: { role: 'user', content: 'Hi' },
    });
    const response = readClaudeSession(user, 's.jsonl');
    expect(response.text).toBe('');
    expect(response.warnings).toEqual(['s.jsonl holds no final answer of the agent']);
  });
});
