// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} are placeholders of targets files, not JS templates
import { tmpdir } from 'node:os';
import { checkTarget, RUN_TARGET_POLICY } from '@agentv/core/internal';
import type { ResolvedTarget } from '@agentv/core/provider-utils';
import { describe, expect, it } from 'vitest';
import { createAppProviderRegistry } from '../registry.js';

const registry = createAppProviderRegistry();
/** How `agentv validate` checks a target no checked eval file uses. */
const inspect = (target: ResolvedTarget) =>
  checkTarget(target, registry, { unknownProvider: 'warning', missingVariables: 'warning' });

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

describe('checkTarget', () => {
  it('reports settings problems of a known provider as errors, on their field', () => {
    expect(inspect(target('cli', { command_template: 'run {PROMTP}' }))).toEqual([
      expect.objectContaining({
        severity: 'error',
        path: ['command_template'],
        target: 't',
        message: expect.stringMatching(/^command_template: unknown placeholder \{PROMTP\}/),
      }),
    ]);
  });

  it('warns about a provider this AgentV does not have, without checking its settings', () => {
    expect(inspect(target('vscode', { workspace_template: 42 }))).toEqual([
      {
        severity: 'warning',
        path: ['provider'],
        target: 't',
        message: 'unknown provider "vscode"; this target cannot run with this AgentV',
        hint: 'use one of: amazon-bedrock, anthropic, azure, azure-openai, bedrock, claude, claude-cli, claude-code, cli, codex, copilot, copilot-cli, deepseek, gemini, gemini-cli, google, google-gemini, google-vertex, groq, http, mistral, mock, openai, openai-compatible, opencode, openrouter, vertex, xai, or leave it for runs that do not use it',
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
        path: ['cwd'],
        target: 't',
        message: 'needs environment variable(s) AGENT_HOME, which are not set',
        hint: 'set AGENT_HOME in your shell or in a .env file; a run that uses this target fails until then',
      },
    ]);
  });

  it('reports an unknown provider as an error when the target is used, naming its users', () => {
    expect(
      checkTarget(target('vscode', {}), registry, {
        unknownProvider: 'error',
        missingVariables: 'warning',
        usedBy: ['evals/a.yaml'],
      }),
    ).toEqual([
      {
        severity: 'error',
        path: ['provider'],
        target: 't',
        message: 'unknown provider "vscode"',
        hint: 'use one of: amazon-bedrock, anthropic, azure, azure-openai, bedrock, claude, claude-cli, claude-code, cli, codex, copilot, copilot-cli, deepseek, gemini, gemini-cli, google, google-gemini, google-vertex, groq, http, mistral, mock, openai, openai-compatible, opencode, openrouter, vertex, xai (used by evals/a.yaml)',
      },
    ]);
  });

  it('reports unset variables as errors for a run', () => {
    const issues = checkTarget(
      target('cli', { command_template: 'node a.mjs {PROMPT}', cwd: '${{ HOME_X }}' }, ['HOME_X']),
      registry,
      RUN_TARGET_POLICY,
    );
    expect(issues).toEqual([
      {
        severity: 'error',
        path: ['cwd'],
        target: 't',
        message: 'uses environment variable(s) HOME_X, which are not set',
        hint: 'set HOME_X in your shell or in a .env file next to the eval file',
      },
    ]);
  });
});
