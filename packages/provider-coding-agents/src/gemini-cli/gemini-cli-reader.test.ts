import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createGeminiCliReader } from './gemini-cli-reader.js';

// Real `gemini --output-format stream-json` output (0.61.0) against the scripted Gemini API server.
const fixture = (name: string) =>
  readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);

function read(
  events: unknown[],
  exit: { exitCode?: number; stderr: string } = { exitCode: 0, stderr: '' },
) {
  const reader = createGeminiCliReader();
  for (const event of events) reader.push(event, new Date('2030-01-01T00:00:00.000Z'));
  return reader.finish(exit);
}

const calls = (trace: { type: string; name?: string; rawName?: string }[]) =>
  trace
    .filter((event) => event.type === 'tool_call')
    .map((event) => `${event.name}/${event.rawName}`);

describe('createGeminiCliReader', () => {
  it('turns tool_use / tool_result into canonical tool calls with their results, times and durations', () => {
    const outcome = read(fixture('success.jsonl'));
    expect(outcome.failure).toBeUndefined();
    expect(outcome.answer).toBe('The notes are final.');
    expect(calls(outcome.trace)).toEqual([
      'read_file/read_file',
      'edit_file/replace',
      'shell/run_shell_command',
      'write_file/write_file',
      'search/glob',
    ]);
    const shell = outcome.trace.find((e) => e.type === 'tool_result' && e.name === 'shell');
    expect(shell).toMatchObject({
      rawName: 'run_shell_command',
      output: 'done',
      metadata: { status: 'success' },
    });
    // The events' own timestamps, not the time they were read.
    expect(shell?.timestamp.startsWith('2026-')).toBe(true);
    expect(shell?.metadata?.duration_ms).toBeGreaterThan(0);
    const call = outcome.trace.find((e) => e.type === 'tool_call' && e.name === 'edit_file');
    expect(call?.input).toMatchObject({ file_path: 'notes.txt', old_string: 'draft' });
    // Results of parallel calls are paired by tool_id.
    const glob = outcome.trace.find((e) => e.type === 'tool_result' && e.rawName === 'glob');
    expect(glob?.output).toBe('Found 3 matching file(s)');
  });

  it('joins the delta pieces of the text; text before a tool call is a message, not the answer', () => {
    const outcome = read(fixture('success.jsonl'));
    const messages = outcome.trace.filter((event) => event.type === 'message').map((e) => e.text);
    expect(messages).toEqual(['Let me look.', 'The notes are final.']);
    expect(outcome.trace.at(-1)).toMatchObject({ type: 'message', text: 'The notes are final.' });
  });

  it('takes the tokens and the model from result.stats', () => {
    const outcome = read(fixture('success.jsonl'));
    expect(outcome.usage).toEqual({ inputTokens: 600, outputTokens: 150, totalTokens: 750 });
    expect(outcome.model).toBe('gemini-2.5-flash');
    expect(outcome.costUsd).toBeUndefined();
  });

  it('says which tools were refused when permission_mode did not offer them', () => {
    const outcome = read(fixture('read-only.jsonl'));
    expect(outcome.answer).toBe('The notes are final.');
    const refused = outcome.trace.filter((e) => e.metadata?.permission_denied === true);
    expect(refused.map((e) => `${e.name}/${e.rawName}`)).toEqual([
      'edit_file/replace',
      'shell/run_shell_command',
      'write_file/write_file',
    ]);
    expect(refused[0]?.metadata).toMatchObject({
      status: 'error',
      error_type: 'tool_not_registered',
    });
    expect(outcome.warnings).toEqual([
      expect.stringMatching(
        /^Gemini CLI refused 3 tool calls \(replace, run_shell_command, write_file\): its permission_mode did not offer them/,
      ),
    ]);
  });

  it('classifies a refused key and an unknown model from the result event', () => {
    const auth = read(fixture('api-401.jsonl'), { exitCode: 145, stderr: 'status: 401\n}' });
    expect(auth.failure).toEqual({
      kind: 'auth',
      detail: '401 API key not valid. Please pass a valid API key.',
    });
    expect(auth.answer).toBeUndefined();
    expect(auth.trace.at(-1)).toMatchObject({ type: 'error' });
    const model = read(fixture('model-404.jsonl'), { exitCode: 1, stderr: '' });
    expect(model.failure).toEqual({
      kind: 'model_not_found',
      detail:
        'models/gemini-nope is not found for API version v1beta, or is not supported for generateContent.',
    });
  });

  it('reads exit code 41 as refused authentication, with what stderr says', () => {
    const outcome = read([], {
      exitCode: 41,
      stderr: 'YOLO mode is enabled.\nInvalid auth method selected.\n',
    });
    expect(outcome.failure).toEqual({ kind: 'auth', detail: 'Invalid auth method selected.' });
  });

  it('has no answer when the model ends its last turn without text', () => {
    const outcome = read(fixture('empty-answer.jsonl'));
    expect(outcome.failure).toBeUndefined();
    expect(outcome.answer).toBeUndefined();
    expect(outcome.usage?.inputTokens).toBe(240);
  });

  it('has no answer when the stream ends before the result event', () => {
    const events = fixture('success.jsonl').slice(0, -1);
    expect(read(events).answer).toBeUndefined();
    expect(read(events, { exitCode: 1, stderr: 'boom\n' }).failure).toEqual({
      kind: 'agent_error',
      detail: 'boom',
    });
  });

  it('keeps warnings and errors of the run as error events', () => {
    const outcome = read([
      {
        type: 'error',
        timestamp: '2030-01-01T00:00:01.000Z',
        severity: 'warning',
        message: 'Loop detected, stopping execution',
      },
      { type: 'result', timestamp: '2030-01-01T00:00:02.000Z', status: 'success', stats: {} },
    ]);
    expect(outcome.trace).toEqual([
      {
        type: 'error',
        timestamp: '2030-01-01T00:00:01.000Z',
        text: 'Loop detected, stopping execution',
        metadata: { severity: 'warning' },
      },
    ]);
    expect(outcome.failure).toBeUndefined();
    const invalid = read([
      { type: 'error', severity: 'error', message: 'Model stream ended with empty response text.' },
      { type: 'result', status: 'error', stats: {} },
    ]);
    expect(invalid.failure).toEqual({
      kind: 'agent_error',
      detail: 'Model stream ended with empty response text.',
    });
  });

  it('has no running totals: Gemini CLI reports its stats once, in its result', () => {
    expect(createGeminiCliReader().spent).toBeUndefined();
  });
});
