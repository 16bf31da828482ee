// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are ${{ NAME }} placeholders of targets files, not JS templates
import { describe, expect, it } from 'vitest';
import { checkTarget, RUN_TARGET_POLICY } from '../project/check-target.js';
import { mockProviderFactory } from '../provider/mock-provider.js';
import { createProviderRegistry } from '../provider/provider-registry.js';
import { parseTargetsText } from './load-targets.js';

// Targets files written for AgentV 4.x: their key names and `use_target`.

describe('targets files of AgentV 4.x', () => {
  it('reads command, grader_target and a healthcheck without type as ours, located as written', async () => {
    const text = [
      'targets:',
      '  - name: agent',
      '    provider: cli',
      '    command: node agent.mjs {PROMPT}',
      '    grader_target: grader',
      '    healthcheck:',
      '      command: node ready.mjs',
      '  - name: service',
      '    provider: cli',
      '    command: node agent.mjs {PROMPT}',
      '    healthcheck: { url: "http://127.0.0.1:9/health" }',
      '  - name: grader',
      '    provider: mock',
    ].join('\n');
    const result = await parseTargetsText(text, '/p/targets.yaml', { env: {} });
    expect(result.issues).toEqual([]);
    const [agent, service] = result.value!;
    expect(agent).toMatchObject({
      judgeTarget: 'grader',
      settings: {
        command_template: 'node agent.mjs {PROMPT}',
        healthcheck: { type: 'command', command_template: 'node ready.mjs' },
      },
    });
    expect(agent!.settings.command).toBeUndefined();
    expect(agent!.positions?.command_template).toEqual({ line: 4, column: 5 });
    expect(agent!.positions?.judge_target).toEqual({ line: 5, column: 5 });
    expect(service!.settings.healthcheck).toEqual({
      type: 'http',
      url: 'http://127.0.0.1:9/health',
    });
  });

  it('refuses both spellings of one key at the line of the old one', async () => {
    const text = [
      'targets:',
      '  - name: agent',
      '    provider: cli',
      '    command_template: node a.mjs',
      '    command: node b.mjs',
    ].join('\n');
    const result = await parseTargetsText(text, '/p/targets.yaml', { env: {} });
    expect(result.issues).toEqual([
      expect.objectContaining({
        severity: 'error',
        line: 5,
        target: 'agent',
        message: 'both "command" (AgentV 4.x) and "command_template" are set',
      }),
    ]);
  });

  it('makes a use_target target the one it names, keeping its own name and keys', async () => {
    const text = [
      'targets:',
      '  - name: default',
      '    use_target: ${{ AGENT_TARGET }}',
      '  - name: llm',
      '    use_target: fast',
      '    judge_target: fast',
      '  - name: fast',
      '    provider: mock',
      '    response: hello',
    ].join('\n');
    const result = await parseTargetsText(text, '/p/targets.yaml', {
      env: { AGENT_TARGET: 'llm' },
    });
    expect(result.issues).toEqual([]);
    const [chained, llm] = result.value!;
    // As in AgentV 4.x, a chain ends at the target with a provider: the keys between are not taken.
    expect(chained).toMatchObject({
      name: 'default',
      provider: 'mock',
      settings: { name: 'default', response: 'hello' },
    });
    expect(chained!.judgeTarget).toBeUndefined();
    expect(llm).toMatchObject({
      name: 'llm',
      provider: 'mock',
      judgeTarget: 'fast',
      settings: { response: 'hello' },
    });
  });

  it('leaves a use_target of an unset variable to fail only when a run uses it', async () => {
    const text = [
      'targets:',
      '  - name: default',
      '    use_target: ${{ AGENT_TARGET }}',
      '  - name: other',
      '    use_target: nowhere',
    ].join('\n');
    const result = await parseTargetsText(text, '/p/targets.yaml', { env: {} });
    expect(result.issues).toEqual([
      expect.objectContaining({
        severity: 'error',
        line: 5,
        target: 'other',
        message: 'use_target names "nowhere", which is not a target of this file',
      }),
    ]);
    const fixed = await parseTargetsText(text.replace('nowhere', 'default'), '/p/t.yaml', {
      env: {},
    });
    expect(fixed.issues).toEqual([]);
    const registry = createProviderRegistry([mockProviderFactory]);
    expect(checkTarget(fixed.value![0]!, registry, RUN_TARGET_POLICY)).toEqual([
      expect.objectContaining({
        severity: 'error',
        path: ['use_target'],
        message: 'uses environment variable(s) AGENT_TARGET, which are not set',
      }),
    ]);
  });
});
