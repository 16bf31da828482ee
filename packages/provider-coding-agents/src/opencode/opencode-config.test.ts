import { describe, expect, it } from 'vitest';
import type { CodingAgentSettings } from '../shared/settings.js';
import { opencodeConfig, opencodeModel, opencodePermission } from './opencode-config.js';

const settings = (extra: Partial<CodingAgentSettings> = {}): CodingAgentSettings => ({
  permissionMode: 'full',
  args: [],
  env: {},
  maxOutputBytes: 1024,
  ...extra,
});

describe('opencodeConfig', () => {
  it('serves the model from base_url through an OpenAI-compatible provider of its own, the key by reference', () => {
    const config = opencodeConfig(
      settings({ baseUrl: 'http://127.0.0.1:9/v1', model: 'gpt-4.1' }),
      true,
    );
    expect(config).toMatchObject({
      autoupdate: false,
      share: 'disabled',
      model: 'agentv/gpt-4.1',
      permission: { '*': 'allow' },
      provider: {
        agentv: {
          npm: '@ai-sdk/openai-compatible',
          options: { baseURL: 'http://127.0.0.1:9/v1', apiKey: '{env:AGENTV_OPENCODE_API_KEY}' },
          models: { 'gpt-4.1': { tool_call: true } },
        },
      },
    });
  });

  it("uses opencode's own provider without base_url; a bare model name is OpenAI's", () => {
    expect(opencodeModel({ model: 'anthropic/claude-sonnet-4-5' })).toBe(
      'anthropic/claude-sonnet-4-5',
    );
    expect(opencodeModel({ model: 'gpt-5' })).toBe('openai/gpt-5');
    expect(opencodeConfig(settings({ model: 'anthropic/claude-sonnet-4-5' }), true)).toMatchObject({
      provider: { anthropic: { options: { apiKey: '{env:AGENTV_OPENCODE_API_KEY}' } } },
    });
    expect(opencodeConfig(settings(), false)).not.toHaveProperty('provider');
    expect(opencodeConfig(settings(), false)).not.toHaveProperty('model');
  });
});

describe('opencodePermission', () => {
  it('maps each permission mode to rules opencode applies without asking', () => {
    expect(opencodePermission({ permissionMode: 'full' })).toEqual({ '*': 'allow' });
    expect(opencodePermission({ permissionMode: 'workspace_write' })).toEqual({
      '*': 'allow',
      external_directory: 'deny',
    });
    expect(opencodePermission({ permissionMode: 'read_only' })).toEqual({
      '*': 'allow',
      edit: 'deny',
      bash: 'deny',
      external_directory: 'deny',
    });
  });

  it('allows only allowed_tools when set, and denies denied_tools last', () => {
    const permission = opencodePermission({
      permissionMode: 'read_only',
      allowedTools: ['shell', 'search', 'mcp:docs/lookup'],
      deniedTools: ['web_fetch', 'bash'],
    });
    expect(permission).toEqual({
      '*': 'deny',
      edit: 'deny',
      external_directory: 'deny',
      grep: 'allow',
      glob: 'allow',
      list: 'allow',
      docs_lookup: 'allow',
      webfetch: 'deny',
      bash: 'deny',
    });
    // The last key wins in opencode: the order above is the order of precedence.
    expect(Object.keys(permission).at(-1)).toBe('bash');
  });
});
