// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} is targets-file syntax, not a JS template
import type { ResolvedTarget } from '@agentv/core';
import { describe, expect, it } from 'vitest';
import type { LlmKind } from './llm-kinds.js';
import { llmProviderFactories } from './llm-provider-factories.js';
import {
  DEFAULT_AZURE_API_VERSION,
  parseLlmSettings,
  validateLlmSettings,
} from './llm-provider-settings.js';

function target(provider: string, settings: Record<string, unknown>): ResolvedTarget {
  return { name: 'judge', provider, settings, filePath: '/p/.agentv/targets.yaml', baseDir: '/p' };
}

const validate = (kind: LlmKind, settings: Record<string, unknown>) =>
  validateLlmSettings(kind, target(kind, settings));

describe('validateLlmSettings', () => {
  it('accepts complete targets of every kind, AgentV 1.x spellings included', () => {
    expect(validate('openai', { model: 'gpt-4o-mini', api_key: 'k' })).toEqual([]);
    expect(
      validate('openai-compatible', { model: 'llama3.1', base_url: 'http://127.0.0.1:11434/v1' }),
    ).toEqual([]);
    expect(
      validate('azure', {
        endpoint: 'https://x.openai.azure.com',
        api_key: 'k',
        model: 'gpt-4o',
        version: '2024-10-21',
      }),
    ).toEqual([]);
    expect(validate('azure', { resource_name: 'x', api_key: 'k', deployment: 'gpt-4o' })).toEqual(
      [],
    );
    expect(
      validate('anthropic', { model: 'claude-sonnet-4-5', api_key: 'k', max_tokens: 512 }),
    ).toEqual([]);
    // AgentV 1.x gemini targets could leave the model out.
    expect(validate('gemini', { api_key: 'k' })).toEqual([]);
  });

  it('reports a missing model and key with the variable that usually holds the key', () => {
    expect(validate('openai', {})).toEqual([
      {
        severity: 'error',
        path: ['model'],
        message: 'is required',
        hint: 'add e.g. `model: gpt-4o-mini`',
      },
      {
        severity: 'error',
        path: ['api_key'],
        message: 'is required',
        hint: 'add `api_key: ${{ OPENAI_API_KEY }}` and set OPENAI_API_KEY in .env',
      },
    ]);
    expect(validate('anthropic', { model: 'claude-sonnet-4-5', api_key: ' ' })[0]).toMatchObject({
      path: ['api_key'],
      hint: expect.stringContaining('ANTHROPIC_API_KEY'),
    });
    expect(validate('azure', { api_key: 'k' }).map((issue) => issue.path?.join('.'))).toEqual([
      'deployment',
      'endpoint',
    ]);
  });

  it('leaves values whose variable is unset to core, which names the variable', () => {
    expect(
      validate('openai-compatible', {
        model: 'm',
        base_url: '${{ LLM_BASE_URL }}',
        temperature: '${{ TEMPERATURE }}',
      }),
    ).toEqual([]);
  });

  it('reports a bad base URL, invalid numbers and pricing, each with a hint', () => {
    const issues = validate('openai-compatible', {
      model: 'm',
      base_url: 'localhost:11434',
      temperature: 3,
      max_output_tokens: 1.5,
      pricing: { input_per_mtok: -1 },
    });
    expect(issues.map(({ path, message }) => `${path?.join('.')}: ${message}`)).toEqual([
      'base_url: must be an http:// or https:// URL',
      'temperature: must be a number between 0 and 2, not 3',
      'max_output_tokens: must be a whole number >= 1, not 1.5',
      'pricing.input_per_mtok: must be a number >= 0, not -1',
      'pricing.output_per_mtok: is required',
    ]);
    for (const issue of issues) expect(issue.hint).toBeTruthy();
    expect(validate('openai-compatible', { model: 'm' })).toEqual([
      {
        severity: 'error',
        path: ['base_url'],
        message: 'is required',
        hint: "add the server's API URL, e.g. `base_url: http://127.0.0.1:11434/v1`",
      },
    ]);
  });
});

describe('parseLlmSettings', () => {
  it('reads AgentV 1.x Azure targets: endpoint URL, model as deployment, version', () => {
    expect(
      parseLlmSettings(
        'azure',
        target('azure', {
          endpoint: 'https://x.openai.azure.com/',
          api_key: 'k',
          model: 'my-deployment',
          version: 'api-version=2024-10-21',
          temperature: '0.2',
          max_tokens: 256,
        }),
      ),
    ).toEqual({
      kind: 'azure',
      model: 'my-deployment',
      apiKey: 'k',
      baseUrl: 'https://x.openai.azure.com/openai',
      apiVersion: '2024-10-21',
      temperature: 0.2,
      maxOutputTokens: 256,
    });
    expect(
      parseLlmSettings('azure', target('azure', { endpoint: 'x', api_key: 'k', deployment: 'd' })),
    ).toMatchObject({ resourceName: 'x', model: 'd', apiVersion: DEFAULT_AZURE_API_VERSION });
  });

  it('reads pricing and defaults the Gemini model', () => {
    expect(
      parseLlmSettings(
        'gemini',
        target('gemini', { api_key: 'k', pricing: { input_per_mtok: 1, output_per_mtok: 4 } }),
      ),
    ).toEqual({
      kind: 'gemini',
      model: 'gemini-2.5-flash',
      apiKey: 'k',
      pricing: { inputPerMtok: 1, outputPerMtok: 4 },
    });
  });
});

describe('llmProviderFactories', () => {
  it('serves the five kinds and the AgentV 1.x aliases', () => {
    expect(llmProviderFactories.map((factory) => factory.kind)).toEqual([
      'openai',
      'openai-compatible',
      'azure',
      'anthropic',
      'gemini',
      'azure-openai',
      'google',
      'google-gemini',
    ]);
    const azure = llmProviderFactories.find((factory) => factory.kind === 'azure')!;
    expect(azure.settingsKeys).toEqual(
      expect.arrayContaining(['endpoint', 'version', 'resource_name', 'api_version']),
    );
  });
});
