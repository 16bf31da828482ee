import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AgentOutcome } from '../shared/agent-adapter.js';
import { createClaudeCodeReader } from './claude-code-reader.js';

/** Streams captured from `claude` 2.1.332 run against test-support/anthropic-server.ts. */
function fixture(name: string): unknown[] {
  const text = readFileSync(new URL(`./__fixtures__/${name}.jsonl`, import.meta.url), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

function read(events: unknown[], exit = { exitCode: 0, stderr: '' }): AgentOutcome {
  const reader = createClaudeCodeReader();
  const receivedAt = new Date('2026-11-26T00:00:00.000Z');
  for (const event of events) reader.push(event, receivedAt);
  return reader.finish(exit);
}

describe('the Claude Code event reader', () => {
  it('maps every tool call to its canonical name, keeping Claude Code’s own', () => {
    const outcome = read(fixture('tools-bypass'));
    const calls = outcome.trace.filter((event) => event.type === 'tool_call');
    expect(calls.map((event) => [event.name, event.rawName])).toEqual([
      ['read_file', 'Read'],
      ['edit_file', 'Edit'],
      ['write_file', 'Write'],
      ['shell', 'Bash'],
    ]);
    expect(calls[3]?.input).toEqual({
      command: 'cat hello.txt new.txt',
      description: 'Show files',
    });
    const results = outcome.trace.filter((event) => event.type === 'tool_result');
    expect(results.map((event) => event.name)).toEqual([
      'read_file',
      'edit_file',
      'write_file',
      'shell',
    ]);
    const shell = results[3];
    expect(shell?.id).toBe(calls[3]?.id);
    expect(shell?.output).toBe('hello world\nhi');
    expect(shell?.metadata).toEqual({ duration_ms: 87, stdout: 'hello world\nhi' });
  });

  it('takes the answer and the totals from the result event, not from per-message usage', () => {
    const outcome = read(fixture('tools-bypass'));
    expect(outcome.answer).toBe('Both files are written.');
    // Four messages each start with a snapshot of 120 input tokens; the run used 480 in total.
    expect(outcome.usage).toEqual({ inputTokens: 480, outputTokens: 120, totalTokens: 600 });
    expect(outcome.costUsd).toBe(0.00324);
    expect(outcome.model).toBe('claude-sonnet-4-5');
    expect(outcome.failure).toBeUndefined();
    expect(outcome.warnings).toBeUndefined();
  });

  it('stamps events with the times Claude Code gives them', () => {
    const outcome = read(fixture('tools-bypass'));
    const call = outcome.trace.find((event) => event.type === 'tool_call');
    const result = outcome.trace.find((event) => event.type === 'tool_result');
    expect(call?.timestamp).toMatch(/^2026-11-26T01:02:2/);
    expect(Date.parse(result?.timestamp ?? '')).toBeGreaterThan(Date.parse(call?.timestamp ?? ''));
  });

  it('counts one model step per message, however many blocks it streams', () => {
    const steps = read(fixture('tools-bypass')).trace.filter((e) => e.type === 'model_step');
    expect(steps.map((step) => step.id)).toEqual(['msg_0001', 'msg_0002', 'msg_0003', 'msg_0004']);
    expect(steps[0]?.name).toBe('claude-sonnet-4-5');
  });

  it('turns a denied tool call into a trace error and a warning naming the tool and the fix', () => {
    const outcome = read(fixture('permission-denied'));
    const errors = outcome.trace.filter((event) => event.type === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ name: 'shell', rawName: 'Bash' });
    expect(errors[0]?.text).toContain('needs approval');
    expect(outcome.warnings).toEqual([
      expect.stringMatching(/denied 1 tool call \(Bash\).*permission_mode: full.*allowed_tools/),
    ]);
    expect(outcome.answer).toBe('I could not write the file.');
  });

  it('reports a denial listed only in the result event', () => {
    const events = fixture('permission-denied').filter(
      (event) => (event as { subtype?: string }).subtype !== 'permission_denied',
    );
    const errors = read(events).trace.filter((event) => event.type === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.rawName).toBe('Bash');
  });

  it('classifies a refused API key', () => {
    const outcome = read(fixture('auth-refused'), { exitCode: 1, stderr: '' });
    expect(outcome.failure).toEqual({
      kind: 'auth',
      detail: 'Invalid API key · Fix external API key',
    });
    expect(outcome.answer).toBeUndefined();
  });

  it('classifies a run without any credentials as refused authentication', () => {
    const outcome = read(fixture('not-logged-in'), { exitCode: 1, stderr: '' });
    expect(outcome.failure?.kind).toBe('auth');
    expect(outcome.failure?.detail).toContain('Not logged in');
  });

  it('classifies an unknown model', () => {
    const outcome = read(fixture('model-not-found'), { exitCode: 1, stderr: '' });
    expect(outcome.failure?.kind).toBe('model_not_found');
    expect(outcome.failure?.detail).toContain('claude-nope');
  });

  it('gives no answer when the model’s last message is empty', () => {
    const outcome = read(fixture('empty-answer'));
    expect(outcome.answer).toBeUndefined();
    expect(outcome.failure).toBeUndefined();
  });

  it('names the last line of stderr when the agent exits without a result', () => {
    const outcome = read(fixture('tools-bypass').slice(0, 3), {
      exitCode: 1,
      stderr: 'starting\n--dangerously-skip-permissions cannot be used with root/sudo privileges\n',
    });
    expect(outcome.failure).toEqual({
      kind: 'agent_error',
      detail: '--dangerously-skip-permissions cannot be used with root/sudo privileges',
    });
    expect(outcome.answer).toBeUndefined();
  });

  it('leaves the cost to the price table when Claude Code only guessed it', () => {
    const events = fixture('tools-bypass');
    const result = events.at(-1) as { modelUsage: Record<string, { costBasis: string }> };
    for (const usage of Object.values(result.modelUsage)) usage.costBasis = 'unknown';
    const outcome = read(events);
    expect(outcome.costUsd).toBeUndefined();
    expect(outcome.usage?.inputTokens).toBe(480);
  });

  it('marks the tool calls of a subagent with the Agent call they belong to', () => {
    const at = '2026-11-26T00:00:01.000Z';
    const outcome = read([
      {
        type: 'assistant',
        timestamp: at,
        message: { id: 'm1', content: [{ type: 'tool_use', id: 'a1', name: 'Agent', input: {} }] },
      },
      {
        type: 'assistant',
        parent_tool_use_id: 'a1',
        timestamp: at,
        message: { id: 'm2', content: [{ type: 'tool_use', id: 'g1', name: 'Grep', input: {} }] },
      },
      {
        type: 'user',
        parent_tool_use_id: 'a1',
        timestamp: at,
        message: { content: [{ type: 'tool_result', tool_use_id: 'g1', content: 'x.ts' }] },
      },
      { type: 'result', is_error: false, result: 'found' },
    ]);
    const tools = outcome.trace.filter((e) => e.type === 'tool_call' || e.type === 'tool_result');
    expect(tools.map((e) => [e.type, e.name, e.metadata?.parent_tool_use_id])).toEqual([
      ['tool_call', 'Agent', undefined],
      ['tool_call', 'search', 'a1'],
      ['tool_result', 'search', 'a1'],
    ]);
  });

  it('ignores events it does not know and values of the wrong type', () => {
    const outcome = read([
      'text',
      null,
      { type: 'stream_event', event: {} },
      { type: 'assistant', message: { id: 7, content: 'not blocks' } },
      { type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 'unknown' }] } },
      { type: 'result', is_error: false, result: 'ok', usage: { input_tokens: 'x' } },
    ]);
    expect(outcome.answer).toBe('ok');
    expect(outcome.usage).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
    expect(outcome.trace).toEqual([
      { type: 'tool_result', timestamp: '2026-11-26T00:00:00.000Z', id: 'unknown' },
    ]);
  });

  it('reports running totals of its model requests as they stream, one snapshot per message', () => {
    const reader = createClaudeCodeReader();
    const receivedAt = new Date('2026-11-26T00:00:00.000Z');
    const seen: unknown[] = [];
    for (const event of fixture('tools-bypass')) {
      reader.push(event, receivedAt);
      const spent = reader.spent?.();
      if (spent !== undefined && JSON.stringify(spent) !== JSON.stringify(seen.at(-1))) {
        seen.push(spent);
      }
    }
    // Four model requests of 120 prompt tokens; msg_0003 came as two events and counts once.
    expect(seen).toEqual([
      {
        usage: { inputTokens: 120, outputTokens: 1, totalTokens: 121 },
        model: 'claude-sonnet-4-5',
      },
      {
        usage: { inputTokens: 240, outputTokens: 2, totalTokens: 242 },
        model: 'claude-sonnet-4-5',
      },
      {
        usage: { inputTokens: 360, outputTokens: 3, totalTokens: 363 },
        model: 'claude-sonnet-4-5',
      },
      {
        usage: { inputTokens: 480, outputTokens: 4, totalTokens: 484 },
        model: 'claude-sonnet-4-5',
      },
    ]);
    // The outcome keeps the result's totals, output tokens counted in full.
    expect(reader.finish({ exitCode: 0, stderr: '' }).usage).toMatchObject({
      inputTokens: 480,
      outputTokens: 120,
    });
  });
});
