import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidInputError } from '@agentv/core/provider-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCliSettings, validateCliSettings } from './cli-provider-settings.js';
import { catchError } from './test-support/catch-error.js';
import { makeTarget } from './test-support/make-target.js';
import { workingDirectory } from './working-directory.js';

const baseDir = mkdtempSync(join(tmpdir(), 'agentv-settings-test-'));
afterAll(() => rmSync(baseDir, { recursive: true, force: true }));
const target = (settings: Record<string, unknown>) => makeTarget(settings, { baseDir });
const issuesOf = (settings: Record<string, unknown>) => validateCliSettings(target(settings));

describe('validateCliSettings', () => {
  it('accepts a complete, valid target', () => {
    expect(
      issuesOf({
        command_template: 'node ./agent.mjs --prompt {PROMPT} --out {OUTPUT_FILE} {FILES}',
        files_format: '--file={path}',
        attachments_format: '{basename}',
        cwd: '.',
        env: { API_BASE: 'http://127.0.0.1:1', RETRIES: 3, DEBUG: true },
        timeout_seconds: 0.5,
        verbose: true,
        provider_batching: false,
        workers: 4,
        max_retries: 2,
        batch_size: 10,
        judge_target: 'judge',
        healthcheck: { type: 'http', url: 'http://127.0.0.1:8080/health', timeout_seconds: 5 },
      }),
    ).toEqual([]);
  });

  it('requires command_template', () => {
    expect(issuesOf({})).toEqual([
      expect.objectContaining({ path: ['command_template'], message: 'is required' }),
    ]);
    expect(issuesOf({ command_template: '  ' })).toEqual([
      expect.objectContaining({ path: ['command_template'], message: 'must not be empty' }),
    ]);
    expect(issuesOf({ command_template: ['agent'] })[0]?.message).toMatch(/must be a string/);
    expect(issuesOf({})[0]?.hint).toContain('command_template');
  });

  it('names an unknown placeholder and lists the supported ones', () => {
    const issues = issuesOf({ command_template: 'agent {QUESTION} {PROMPT} {OUT_FILE}' });
    expect(issues.map((issue) => issue.path?.join('.'))).toEqual([
      'command_template',
      'command_template',
    ]);
    expect(issues[0]?.message).toBe(
      'unknown placeholder {QUESTION}; supported placeholders are {PROMPT}, {PROMPT_FILE}, ' +
        '{GUIDELINES}, {EVAL_ID}, {ATTEMPT}, {REPEAT}, {FILES}, {ATTACHMENTS}, {OUTPUT_FILE}, {INPUT_FILE}, ' +
        '{TRACE_FILE}, {WORKSPACE}, {EVAL_DIR}, {TURN}, {CONVERSATION_ID}, {CONVERSATION_FILE}',
    );
    expect(issues[0]?.hint).toContain('{{QUESTION}}');
    expect(issues[1]?.message).toMatch(/^unknown placeholder \{OUT_FILE\}/);
  });

  it('does not treat JSON, shell expansions, lower-case or escaped braces as placeholders', () => {
    expect(
      issuesOf({ command_template: `agent '{"a":1}' \${HOME} {path} {{LITERAL}} {PROMPT}` }),
    ).toEqual([]);
  });

  it('checks files_format and attachments_format', () => {
    expect(issuesOf({ command_template: 'a', files_format: '--file' })).toEqual([
      expect.objectContaining({
        path: ['files_format'],
        message: 'must contain {path} or {basename}',
      }),
    ]);
    expect(issuesOf({ command_template: 'a', attachments_format: 3 })[0]?.path?.join('.')).toBe(
      'attachments_format',
    );
  });

  it('says when an absolute cwd does not exist or is not a directory', () => {
    const missingPath = join(baseDir, 'no-such-dir');
    const missing = issuesOf({ command_template: 'a', cwd: missingPath });
    expect(missing).toHaveLength(1);
    expect(missing[0]?.path?.join('.')).toBe('cwd');
    expect(missing[0]?.message).toBe(`directory ${missingPath} does not exist`);
    // A relative cwd depends on each case's eval file, so it is checked when the command runs.
    expect(issuesOf({ command_template: 'a', cwd: 'no-such-dir' })).toEqual([]);
    const file = join(baseDir, 'a-file');
    writeFileSync(file, '');
    expect(issuesOf({ command_template: 'a', cwd: file })[0]?.message).toBe(
      `${file} is not a directory`,
    );
  });

  it('checks env values, and leaves timeout_seconds (common to all targets) to the loader', () => {
    const issues = issuesOf({
      command_template: 'a',
      env: { OK: 'x', BAD: { nested: true }, NULL: null },
      timeout_seconds: 0,
    });
    expect(issues.map((issue) => issue.path?.join('.')).sort()).toEqual(['env.BAD', 'env.NULL']);
    expect(issues.find((issue) => issue.path?.join('.') === 'env.BAD')?.message).toMatch(
      /must be a string/,
    );
    expect(issuesOf({ command_template: 'a', env: ['A=1'] })[0]?.path).toEqual(['env']);
  });

  describe('healthcheck', () => {
    const healthcheckIssues = (healthcheck: unknown) =>
      issuesOf({ command_template: 'a', healthcheck });

    it('says when type is missing or unsupported', () => {
      expect(healthcheckIssues({ url: 'http://127.0.0.1/' })).toEqual([
        expect.objectContaining({
          path: ['healthcheck', 'type'],
          message: 'is required; the supported types are http and command',
        }),
      ]);
      expect(healthcheckIssues({ type: 'tcp', port: 80 })).toEqual([
        expect.objectContaining({
          path: ['healthcheck', 'type'],
          message: 'unsupported type "tcp"; the supported types are http and command',
        }),
      ]);
      expect(healthcheckIssues('http://127.0.0.1/')[0]?.message).toBe('must be a mapping');
    });

    it('requires url for http and command_template for command', () => {
      expect(healthcheckIssues({ type: 'http' })).toEqual([
        expect.objectContaining({
          path: ['healthcheck', 'url'],
          message: 'is required for type: http',
        }),
      ]);
      expect(healthcheckIssues({ type: 'http', url: 'ftp://x/' })[0]?.message).toBe(
        'must be an http:// or https:// URL',
      );
      expect(healthcheckIssues({ type: 'command' })).toEqual([
        expect.objectContaining({
          path: ['healthcheck', 'command_template'],
          message: 'is required for type: command',
        }),
      ]);
    });

    it('checks the timeout, the cwd and placeholders of a command check', () => {
      const issues = healthcheckIssues({
        type: 'command',
        command_template: 'curl {EVAL_ID}',
        cwd: '/missing-dir',
        timeout_seconds: -1,
      });
      expect(issues.map((issue) => issue.path?.join('.')).sort()).toEqual([
        'healthcheck.command_template',
        'healthcheck.cwd',
        'healthcheck.timeout_seconds',
      ]);
    });

    it('accepts the camelCase spelling of nested keys', () => {
      expect(
        healthcheckIssues({ type: 'command', commandTemplate: 'true', timeoutSeconds: 2 }),
      ).toEqual([]);
    });
  });
});

describe('start_timeout_seconds', () => {
  it('is seconds, for mode: persistent only', () => {
    expect(
      issuesOf({
        command_template: 'node agent.mjs',
        mode: 'persistent',
        start_timeout_seconds: 90,
      }),
    ).toEqual([]);
    expect(
      issuesOf({
        command_template: 'node agent.mjs',
        mode: 'persistent',
        start_timeout_seconds: 'x',
      }),
    ).toEqual([
      expect.objectContaining({
        path: ['start_timeout_seconds'],
        message: 'must be a number of seconds',
      }),
    ]);
    const single = issuesOf({ command_template: 'agent {PROMPT}', start_timeout_seconds: 90 });
    expect(single).toEqual([
      expect.objectContaining({
        path: ['start_timeout_seconds'],
        message: expect.stringContaining('applies only to mode: persistent'),
        hint: 'remove start_timeout_seconds, or set mode: persistent',
      }),
    ]);
    expect(
      parseCliSettings(
        target({
          command_template: 'node agent.mjs',
          mode: 'persistent',
          start_timeout_seconds: 90,
        }),
      ).startTimeoutSeconds,
    ).toBe(90);
  });
});

describe('parseCliSettings', () => {
  it('resolves paths, converts env values and applies defaults', () => {
    const settings = parseCliSettings(
      target({
        command_template: 'agent {PROMPT}',
        cwd: '.',
        env: { A: 'x', N: 3, B: false },
        healthcheck: { type: 'command', command_template: 'true', cwd: '.' },
      }),
    );
    expect(settings).toEqual({
      commandTemplate: 'agent {PROMPT}',
      filesFormat: '{path}',
      attachmentsFormat: '{path}',
      cwd: '.',
      baseDir,
      env: { A: 'x', N: '3', B: 'false' },
      maxOutputBytes: 16 * 1024 * 1024,
      healthcheck: { type: 'command', commandTemplate: 'true', cwd: '.' },
      verbose: false,
    });
  });

  it("defaults cwd to the eval file's directory and prefers the lifted timeout", () => {
    const settings = parseCliSettings(
      makeTarget({ command_template: 'a', timeout_seconds: 5 }, { baseDir, timeoutSeconds: 7 }),
    );
    expect(settings.cwd).toBe('.');
    expect(workingDirectory(settings, { evalDir: '/repo/evals' })).toBe('/repo/evals');
    expect(workingDirectory({ ...settings, cwd: '../agents' }, { evalDir: '/repo/evals' })).toBe(
      '/repo/agents',
    );
    expect(workingDirectory({ ...settings, cwd: '/opt/agent' }, { evalDir: '/repo/evals' })).toBe(
      '/opt/agent',
    );
    // Without an eval file (a health check) it falls back to the targets' base folder.
    expect(workingDirectory(settings, {})).toBe(baseDir);
    expect(settings.timeoutSeconds).toBe(7);
  });

  it("reads the target's max_output_bytes as lifted by core", () => {
    const settings = parseCliSettings(
      makeTarget({ command_template: 'a' }, { baseDir, maxOutputBytes: 65536 }),
    );
    expect(settings.maxOutputBytes).toBe(65536);
  });

  it('throws an error naming the targets file, the target and each problem', async () => {
    const error = await catchError(() =>
      parseCliSettings(target({ command_template: 'agent {NOPE}', cwd: 42 })),
    );
    expect(error).toBeInstanceOf(InvalidInputError);
    const issues = (error as InvalidInputError).issues;
    expect(issues).toHaveLength(2);
    expect(issues[0]).toMatchObject({
      file: join(baseDir, '.agentv', 'targets.yaml'),
      target: 'my_agent',
      severity: 'error',
    });
    expect(issues.map((issue) => issue.message)).toEqual([
      'cwd: must be a directory path',
      expect.stringMatching(/^command_template: unknown placeholder \{NOPE\}/),
    ]);
  });
});
