// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} is targets-file syntax, not a JS template
import { isInvalidInputError } from '@agentv/core';
import { describe, expect, it } from 'vitest';
import { parseHttpSettings, validateHttpSettings } from './http-settings.js';
import { makeTarget } from './test-support/make-target.js';

const VALID = {
  url: 'http://127.0.0.1:8080/chat',
  body: { question: '{PROMPT}' },
  response_path: 'answer',
};

/** The issues of a target with `settings` over a valid one, as `path: message`. */
function problems(settings: Record<string, unknown>): string[] {
  return validateHttpSettings(makeTarget({ ...VALID, ...settings })).map(
    (issue) => `${issue.severity} ${(issue.path ?? []).join('.')}: ${issue.message}`,
  );
}

describe('validateHttpSettings', () => {
  it('accepts a complete target', () => {
    expect(
      problems({
        method: 'put',
        headers: { Authorization: 'Bearer x', 'X-Retries': 3 },
        body: { a: ['{FILES}', { b: 'case {EVAL_ID} attempt {ATTEMPT}' }], c: '{INPUT}' },
        trace_path: 'data.trace',
        output_messages_path: 'data.messages',
        usage_path: 'choices.0.usage',
        healthcheck: { url: 'https://agent.example.com/health', expect_status: 204 },
      }),
    ).toEqual([]);
  });

  it('checks the URL without sending anything', () => {
    expect(problems({ url: undefined })).toEqual(['error url: is required']);
    expect(problems({ url: 'localhost:8080/chat' })).toEqual([
      'error url: must be an http:// or https:// URL, not localhost:',
    ]);
    expect(problems({ url: 'not a url' })).toEqual(['error url: "not a url" is not a URL']);
    expect(problems({ url: 'ftp://example.com/a' })).toEqual([
      'error url: must be an http:// or https:// URL, not ftp:',
    ]);
    // An unset ${{ VAR }} is reported by core, once, naming the variable.
    expect(problems({ url: '${{ AGENT_URL }}/chat' })).toEqual([]);
  });

  it('checks the method and headers', () => {
    expect(problems({ method: 'SEND' })).toEqual(['error method: unknown method "SEND"']);
    expect(problems({ headers: 'Bearer x' })).toEqual(['error headers: must be a mapping']);
    expect(problems({ headers: { 'Bad Name': 'x', Token: { a: 1 } } })).toEqual([
      'error headers.Bad Name: is not a valid header name',
      'error headers.Token: must be a string (numbers and booleans are converted)',
    ]);
    expect(problems({ method: 'GET' })).toEqual(['error body: a GET request has no body']);
  });

  it('names unknown body placeholders with a did-you-mean', () => {
    const issues = validateHttpSettings(
      makeTarget({
        ...VALID,
        body: { q: '{PROMT}', nested: [{ id: 'x {EVALID}' }], ok: '{{PROMT}}' },
      }),
    );
    expect(issues.map((issue) => [issue.path, issue.message])).toEqual([
      [['body', 'q'], 'unknown placeholder {PROMT}; did you mean {PROMPT}?'],
      [['body', 'nested', 0, 'id'], 'unknown placeholder {EVALID}; did you mean {EVAL_ID}?'],
    ]);
    expect(issues[0]!.hint).toContain('{INPUT_MESSAGES}');
    expect(issues[0]!.hint).toContain('write {{PROMT}} for a literal {PROMT}');
  });

  it('refuses file placeholders and structured placeholders inside a text', () => {
    expect(problems({ body: { p: '{PROMPT_FILE}', m: 'messages: {INPUT_MESSAGES}' } })).toEqual([
      'error body.p: {PROMPT_FILE} names a file, which an HTTP body does not have',
      'error body.m: {INPUT_MESSAGES} is a JSON array, so it must be the whole value, not part of a text',
    ]);
    expect(problems({ body: 'question={PROMPT}' })).toEqual([
      'error body: must be a mapping or a list (it is sent as JSON)',
    ]);
  });

  it('checks that paths are well formed', () => {
    expect(problems({ response_path: undefined })).toEqual([
      'error response_path: is required; it says where the answer is in the JSON response',
    ]);
    expect(
      problems({
        response_path: 'data..answer',
        trace_path: 'choices[0].trace',
        usage_path: '',
        output_messages_path: 3,
      }),
    ).toEqual([
      'error response_path: has an empty segment; write keys separated by single dots, e.g. data.answer',
      'error trace_path: uses brackets; write array indexes as segments, e.g. choices.0.text',
      'error output_messages_path: must be a string',
      'error usage_path: must not be empty',
    ]);
  });

  it('checks the health check', () => {
    expect(problems({ healthcheck: 'http://x' })).toEqual(['error healthcheck: must be a mapping']);
    expect(
      problems({
        healthcheck: {
          url: 'ftp://x',
          method: 'PING',
          expect_status: 700,
          timeout_seconds: 0,
          expect_stauts: 1,
        },
      }),
    ).toEqual([
      'warning healthcheck.expect_stauts: unknown key; did you mean "expect_status"?',
      'error healthcheck.url: must be an http:// or https:// URL, not ftp:',
      'error healthcheck.method: unknown method "PING"',
      'error healthcheck.expect_status: must be an HTTP status (100-599) or a list of them',
      'error healthcheck.timeout_seconds: must be a number of seconds greater than 0',
    ]);
  });
});

describe('parseHttpSettings', () => {
  it('applies defaults and converts header values to strings', () => {
    const settings = parseHttpSettings(
      makeTarget(
        {
          ...VALID,
          headers: { 'X-Retries': 3 },
          healthcheck: { url: 'http://127.0.0.1:8080/health', expectStatus: [200, 204] },
        },
        { timeoutSeconds: 12, maxOutputBytes: 4096 },
      ),
    );
    expect(settings).toEqual({
      url: VALID.url,
      method: 'POST',
      headers: { 'X-Retries': '3' },
      body: VALID.body,
      responsePath: 'answer',
      timeoutSeconds: 12,
      maxOutputBytes: 4096,
      healthcheck: {
        url: 'http://127.0.0.1:8080/health',
        method: 'GET',
        expectStatus: [200, 204],
        timeoutSeconds: 10,
      },
    });
  });

  it('throws an InvalidInputError naming the file, line and target', () => {
    let caught: unknown;
    try {
      parseHttpSettings(makeTarget({ url: 'nope' }));
    } catch (error) {
      caught = error;
    }
    expect(isInvalidInputError(caught)).toBe(true);
    const issues = (
      caught as { issues: { file: string; line: number; target: string; message: string }[] }
    ).issues;
    expect(issues.map((issue) => issue.message)).toEqual([
      'url: "nope" is not a URL',
      'response_path: is required; it says where the answer is in the JSON response',
    ]);
    expect(issues[0]).toMatchObject({
      file: '/project/.agentv/targets.yaml',
      line: 3,
      target: 'agent',
    });
  });
});
