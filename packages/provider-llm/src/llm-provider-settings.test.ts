// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} is targets-file syntax, not a JS template
import type { ResolvedTarget } from '@agentv/core/provider-utils';
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

  it('accepts the AI SDK kinds with their key, and Bedrock and Vertex with their other credentials', () => {
    for (const kind of ['mistral', 'groq', 'xai', 'deepseek', 'openrouter'] as const) {
      expect(validate(kind, { model: 'm', api_key: 'k' })).toEqual([]);
    }
    expect(validate('bedrock', { model: 'm', api_key: 'k', region: 'us-east-1' })).toEqual([]);
    expect(
      validate('bedrock', {
        model: 'm',
        region: 'us-east-1',
        access_key_id: '${{ AWS_ACCESS_KEY_ID }}',
        secret_access_key: '${{ AWS_SECRET_ACCESS_KEY }}',
      }),
    ).toEqual([]);
    expect(validate('vertex', { model: 'gemini-2.5-flash', api_key: 'k' })).toEqual([]);
    expect(
      validate('vertex', { model: 'gemini-2.5-flash', project: 'p', location: 'global' }),
    ).toEqual([]);
  });

  it('names the key variables of each new kind, and the other credentials Bedrock and Vertex take', () => {
    const keyHint = (kind: LlmKind) =>
      validate(kind, { model: 'm', region: 'r' }).find((issue) => issue.path?.[0] === 'api_key')
        ?.hint;
    expect(keyHint('mistral')).toBe(
      'add `api_key: ${{ MISTRAL_API_KEY }}` and set MISTRAL_API_KEY in .env',
    );
    expect(keyHint('groq')).toContain('GROQ_API_KEY');
    expect(keyHint('xai')).toContain('XAI_API_KEY');
    expect(keyHint('deepseek')).toContain('DEEPSEEK_API_KEY');
    expect(keyHint('openrouter')).toContain('OPENROUTER_API_KEY');
    expect(keyHint('bedrock')).toBe(
      'add `api_key: ${{ AWS_BEARER_TOKEN_BEDROCK }}` and set AWS_BEARER_TOKEN_BEDROCK in .env, or use AWS access keys: `access_key_id: ${{ AWS_ACCESS_KEY_ID }}` and `secret_access_key: ${{ AWS_SECRET_ACCESS_KEY }}`',
    );
    expect(keyHint('vertex')).toBe(
      "add `api_key: ${{ GOOGLE_VERTEX_API_KEY }}` and set GOOGLE_VERTEX_API_KEY in .env, or use Google's application default credentials: `project: my-project` and `location: us-central1`",
    );
  });

  it('reports half-given credentials, a missing region, and credentials api_key overrides', () => {
    const summary = (kind: LlmKind, settings: Record<string, unknown>) =>
      validate(kind, settings).map(
        ({ severity, path, message }) => `${severity} ${path?.join('.')}: ${message}`,
      );
    expect(summary('bedrock', { model: 'm', access_key_id: 'AKIA' })).toEqual([
      'error secret_access_key: is required with access_key_id',
      'error region: is required',
    ]);
    expect(validate('bedrock', { model: 'm', api_key: 'k' })[0]!.hint).toBe(
      'add `region: us-east-1`',
    );
    expect(summary('vertex', { model: 'm', project: 'p' })).toEqual([
      'error location: is required with project',
    ]);
    expect(summary('vertex', { model: 'm', api_key: 'k', project: 'p', location: 'l' })).toEqual([
      'warning project: project, location not used: api_key is given and takes precedence',
    ]);
    expect(summary('vertex', { model: 'm', project: 123456, location: 'l' })).toEqual([
      'error project: must be a string',
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

  it('takes numeric strings, reads max_tokens only without max_output_tokens, wants pricing as a mapping', () => {
    const messages = (settings: Record<string, unknown>) =>
      validate('openai', { model: 'm', api_key: 'k', ...settings }).map(
        ({ path, message }) => `${path?.join('.')}: ${message}`,
      );
    expect(messages({ temperature: '0.5', max_tokens: '64' })).toEqual([]);
    expect(messages({ max_output_tokens: 10, max_tokens: 'many' })).toEqual([]);
    expect(messages({ max_tokens: 'many', thinking_budget: 0 })).toEqual([
      'max_tokens: must be a whole number >= 1, not "many"',
      'thinking_budget: must be a whole number >= 1, not 0',
    ]);
    expect(messages({ pricing: [1, 2] })).toEqual([
      'pricing: must be a mapping with input_per_mtok and output_per_mtok',
    ]);
  });
});

describe('parseLlmSettings', () => {
  it('reads the Bedrock and Vertex settings, trimmed, and only for their kind', () => {
    expect(
      parseLlmSettings(
        'bedrock',
        target('bedrock', {
          model: 'amazon.nova-lite-v1:0',
          region: ' eu-west-1 ',
          access_key_id: 'AKIA',
          secret_access_key: 'secret',
          session_token: 'token',
          project: 'not-bedrock',
        }),
      ),
    ).toEqual({
      kind: 'bedrock',
      model: 'amazon.nova-lite-v1:0',
      region: 'eu-west-1',
      accessKeyId: 'AKIA',
      secretAccessKey: 'secret',
      sessionToken: 'token',
    });
    expect(
      parseLlmSettings(
        'vertex',
        target('vertex', {
          model: 'gemini-2.5-flash',
          project: 'p',
          location: 'global',
          base_url: 'https://aiplatform.googleapis.com/v1/',
        }),
      ),
    ).toEqual({
      kind: 'vertex',
      model: 'gemini-2.5-flash',
      project: 'p',
      location: 'global',
      baseUrl: 'https://aiplatform.googleapis.com/v1',
    });
  });

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
  it('serves every kind, the AgentV 1.x aliases and the AI SDK package names', () => {
    expect(llmProviderFactories.map((factory) => factory.kind)).toEqual([
      'openai',
      'openai-compatible',
      'azure',
      'anthropic',
      'gemini',
      'bedrock',
      'vertex',
      'mistral',
      'groq',
      'xai',
      'deepseek',
      'openrouter',
      'azure-openai',
      'google',
      'google-gemini',
      'amazon-bedrock',
      'google-vertex',
    ]);
    const azure = llmProviderFactories.find((factory) => factory.kind === 'azure')!;
    expect(azure.settingsKeys).toEqual(
      expect.arrayContaining(['endpoint', 'version', 'resource_name', 'api_version']),
    );
  });
});
