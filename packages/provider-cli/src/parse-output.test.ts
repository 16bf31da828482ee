import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCliOutput } from './parse-output.js';

const fixture = (name: string) =>
  readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');

describe('parseCliOutput', () => {
  it('reads text, trace, usage, cost and duration from a JSON answer', () => {
    const response = parseCliOutput(fixture('answer-with-trace.json'));
    expect(response.text).toMatch(/^The bug is an off-by-one/);
    expect(response.trace?.map((event) => event.type)).toEqual([
      'model_step',
      'tool_call',
      'tool_result',
      'message',
    ]);
    expect(response.trace?.[1]).toEqual({
      type: 'tool_call',
      timestamp: '2025-06-03T10:15:03.402Z',
      id: 'toolu_01',
      name: 'read_file',
      input: { path: 'src/paginate.ts' },
    });
    expect(response.usage).toEqual({
      inputTokens: 3120,
      outputTokens: 212,
      totalTokens: 3332,
      cacheReadInputTokens: 1024,
    });
    expect(response.costUsd).toBe(0.01254);
    expect(response.durationMs).toBe(3867);
    expect(response.outputMessages).toBeUndefined();
  });

  it('converts output_messages with tool_calls to outputMessages, order kept', () => {
    const response = parseCliOutput(fixture('answer-with-output-messages.json'));
    expect(response.text).toBe('Created hello.py and ran it; it prints "Hello, world!".');
    expect(response.trace).toBeUndefined();
    expect(response.outputMessages).toHaveLength(3);
    expect(response.outputMessages?.[0]).toEqual({
      role: 'assistant',
      content: "I'll create the file first.",
      toolCalls: [
        {
          id: 'call_a1',
          tool: 'write_file',
          input: { path: 'hello.py', content: "print('Hello, world!')\n" },
          output: 'ok',
        },
      ],
    });
    expect(response.outputMessages?.flatMap((m) => m.toolCalls ?? []).map((c) => c.tool)).toEqual([
      'write_file',
      'bash',
    ]);
  });

  it("reads AgentV 4.x's `output` messages as output_messages, and `output` text as plain text", () => {
    const messages = fixture('answer-with-output-messages.json').replace(
      '"output_messages"',
      '"output"',
    );
    expect(parseCliOutput(messages)).toEqual(
      parseCliOutput(fixture('answer-with-output-messages.json')),
    );
    const notMessages = '{"output": "just text"}';
    expect(parseCliOutput(notMessages)).toEqual({ text: notMessages });
  });

  it('keeps both trace and outputMessages when both are present', () => {
    const response = parseCliOutput(fixture('answer-with-trace-and-output-messages.json'));
    expect(response.text).toBe('42');
    expect(response.trace).toHaveLength(2);
    expect(response.outputMessages).toHaveLength(2);
    expect(response.outputMessages?.[0]?.toolCalls?.[0]?.tool).toBe('calculator');
  });

  it('drops invalid trace events and keeps the valid ones', () => {
    const response = parseCliOutput(fixture('answer-with-invalid-trace-events.json'));
    expect(response.text).toBe('Done.');
    expect(response.trace).toEqual([
      {
        type: 'tool_call',
        timestamp: '2025-06-03T12:00:00Z',
        name: 'search',
        input: { query: 'agentv' },
      },
      {
        type: 'tool_result',
        timestamp: '2025-06-03T12:00:02Z',
        name: 'search',
        output: ['result 1'],
      },
    ]);
    // Each dropped event is named, so the run can warn why the trace is short.
    expect(response.warnings).toEqual([
      'trace event 2 (thinking) left out: type must be one of model_step, tool_call, tool_result, message, error',
      'trace event 3 (tool_result "search") left out: timestamp is missing',
      'trace event 4 (message) left out: timestamp is not an ISO 8601 date-time',
      'trace event 5 left out: it is not an object',
      'trace event 6 left out: it is not an object',
    ]);
  });

  it('has no warnings when every trace event is valid', () => {
    const response = parseCliOutput(fixture('answer-with-trace-and-output-messages.json'));
    expect(response.warnings).toBeUndefined();
  });

  it('takes plain text as the answer, removing only one trailing newline', () => {
    const content = fixture('plain-text-answer.txt');
    expect(content.endsWith('\n\n')).toBe(true);
    const response = parseCliOutput(content);
    expect(response.text).toBe(content.slice(0, -1));
    expect(response.trace).toBeUndefined();
  });

  it('JSON-stringifies a non-string text and ignores usage values that are not numbers', () => {
    const response = parseCliOutput(fixture('answer-with-object-text.json'));
    expect(response.text).toBe('{"verdict":"approve","comments":["looks good"]}');
    expect(response.usage).toEqual({ inputTokens: 10 });
  });

  it('takes a JSON object without text as plain text', () => {
    const content = fixture('json-without-text.json');
    expect(parseCliOutput(content).text).toBe(content.slice(0, -1));
  });

  it('takes a JSON array as plain text', () => {
    const content = fixture('json-array.json');
    const response = parseCliOutput(content);
    expect(response.text).toBe(content.slice(0, -1));
    expect(response.trace).toBeUndefined();
  });

  it('takes broken JSON as plain text', () => {
    expect(parseCliOutput('{"text": "unterminated').text).toBe('{"text": "unterminated');
  });

  it('keeps an empty answer empty', () => {
    expect(parseCliOutput('').text).toBe('');
    expect(parseCliOutput('\n').text).toBe('');
  });

  it('ignores trace and output_messages that are not lists', () => {
    const response = parseCliOutput('{"text":"ok","trace":"oops","output_messages":{}}\n');
    expect(response).toEqual({ text: 'ok' });
  });
});
