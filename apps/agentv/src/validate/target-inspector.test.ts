// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} are placeholders of targets files, not JS templates
import { tmpdir } from 'node:os';
import type { ResolvedTarget } from '@agentv/core';
import { describe, expect, it } from 'vitest';
import { createAppProviderRegistry } from '../registry.js';
import { createTargetInspector } from './target-inspector.js';

const inspect = createTargetInspector(createAppProviderRegistry());

function target(provider: string, settings: Record<string, unknown>, missing?: string[]) {
  const resolved: ResolvedTarget = {
    name: 't',
    provider,
    settings: { name: 't', provider, ...settings },
    filePath: '/p/.agentv/targets.yaml',
    baseDir: tmpdir(),
  };
  if (missing) resolved.missingVariables = missing;
  return resolved;
}

describe('createTargetInspector', () => {
  it('reports settings problems of a known provider as errors, on their field', () => {
    expect(inspect(target('cli', { command_template: 'run {PROMTP}' }))).toEqual([
      expect.objectContaining({
        severity: 'error',
        field: 'command_template',
        message: expect.stringMatching(/^command_template: unknown placeholder \{PROMTP\}/),
      }),
    ]);
  });

  it('warns about a provider this AgentV does not have, without checking its settings', () => {
    expect(inspect(target('vscode', { workspace_template: 42 }))).toEqual([
      {
        severity: 'warning',
        field: 'provider',
        message: 'unknown provider "vscode"; this target cannot run with this AgentV',
        hint: 'use one of: anthropic, azure, azure-openai, cli, gemini, google, google-gemini, mock, openai, openai-compatible, or leave it for runs that do not use it',
      },
    ]);
  });

  it('warns about unset variables and skips the settings that still hold them', () => {
    const findings = inspect(
      target(
        'cli',
        { command_template: 'node agent.mjs {PROMPT}', cwd: '${{ AGENT_HOME }}/agent' },
        ['AGENT_HOME'],
      ),
    );
    expect(findings).toEqual([
      {
        severity: 'warning',
        field: 'cwd',
        message: 'needs environment variable(s) AGENT_HOME, which are not set',
        hint: 'set AGENT_HOME in your shell or in a .env file; a run that uses this target fails until then',
      },
    ]);
  });
});
