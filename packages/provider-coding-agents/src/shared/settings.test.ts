import type { ResolvedTarget } from '@agentv/core/provider-utils';
import { describe, expect, it } from 'vitest';
import { parseCodingAgentSettings, validateCodingAgentSettings } from './settings.js';

const target = (
  settings: Record<string, unknown>,
  common: Partial<ResolvedTarget> = {},
): ResolvedTarget => ({
  name: 'agent',
  provider: 'codex',
  settings,
  filePath: '/project/.agentv/targets.yaml',
  baseDir: '/project',
  ...common,
});

describe('coding-agent settings', () => {
  it('accepts every shared setting and applies the defaults', () => {
    const settings = {
      executable: './bin/codex',
      model: 'gpt-5',
      base_url: 'http://127.0.0.1:8080/v1',
      api_key: 'sk-from-env',
      permission_mode: 'read_only',
      allowed_tools: ['shell'],
      denied_tools: ['web_fetch'],
      args: ['--flag'],
      env: { DEBUG: 1, NAME: 'x' },
    };
    const resolved = target(settings, { secretValues: ['sk-from-env'], timeoutSeconds: 30 });
    expect(validateCodingAgentSettings(resolved)).toEqual([]);
    expect(parseCodingAgentSettings(resolved)).toMatchObject({
      executable: './bin/codex',
      baseUrl: 'http://127.0.0.1:8080/v1',
      apiKey: 'sk-from-env',
      permissionMode: 'read_only',
      allowedTools: ['shell'],
      deniedTools: ['web_fetch'],
      args: ['--flag'],
      env: { DEBUG: '1', NAME: 'x' },
      timeoutSeconds: 30,
    });
    expect(parseCodingAgentSettings(target({}))).toEqual({
      permissionMode: 'full',
      args: [],
      env: {},
      maxOutputBytes: 16 * 1024 * 1024,
    });
  });

  it('reports each bad setting at its path', () => {
    const issues = validateCodingAgentSettings(
      target({
        executable: '',
        base_url: 'ftp://host',
        permission_mode: 'ask',
        args: 'one',
        env: { A: ['x'] },
        allowed_tools: [1],
      }),
    );
    expect(issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['executable', 'must not be empty'],
      ['base_url', 'must be an http:// or https:// URL'],
      ['permission_mode', 'must be one of full, workspace_write, read_only'],
      ['allowed_tools.0', 'must be a string'],
      ['args', 'must be a list of strings'],
      ['env.A', 'must be a string (numbers and booleans are converted)'],
    ]);
  });

  it('warns about an API key written in the targets file, and skips an unset variable', () => {
    expect(validateCodingAgentSettings(target({ api_key: 'sk-literal' }))).toMatchObject([
      {
        severity: 'warning',
        path: ['api_key'],
        message: expect.stringContaining('anyone who reads the file'),
      },
    ]);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${{ VAR }} is targets-file syntax
    expect(validateCodingAgentSettings(target({ api_key: '${{ UNSET_KEY }}' }))).toEqual([]);
  });
});
