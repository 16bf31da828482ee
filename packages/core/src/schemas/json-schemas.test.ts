import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildJsonSchemas, JSON_SCHEMA_FILES } from './json-schemas.js';

const schemasDir = path.join(import.meta.dirname, '..', '..', 'schemas');

describe('shipped JSON Schemas', () => {
  it.each(JSON_SCHEMA_FILES)('schemas/%s matches the zod schemas', async (name) => {
    const committed = await readFile(path.join(schemasDir, name), 'utf8').catch(() => '');
    // Stale: run `pnpm --filter @agentv/core build` (it runs scripts/generate-schemas.mjs).
    expect(committed, `schemas/${name} is stale; rebuild @agentv/core`).toBe(
      buildJsonSchemas()[name],
    );
  });

  it('describes the eval file: cases required, messages with roles and tool calls', () => {
    const schema = JSON.parse(buildJsonSchemas()['eval.schema.json']!);
    expect(schema).toMatchObject({
      $schema: 'http://json-schema.org/draft-07/schema#',
      title: 'AgentV eval file',
      anyOf: [{ required: ['evalcases'] }, { required: ['cases'] }],
      properties: { $schema: { const: 'agentv-eval-v2' } },
    });
    const evalCase = schema.properties.evalcases.items;
    // input_messages, turns or simulated_user: the loader says which is missing, at the case.
    expect(evalCase.required).toEqual(['id']);
    const message = evalCase.properties.expected_messages.items;
    expect(message.properties.role.enum).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(message.properties.tool_calls.items.required).toEqual(['tool']);
  });

  it('describes the workspace block, in the file and in each case, every key documented', () => {
    const schema = JSON.parse(buildJsonSchemas()['eval.schema.json']!);
    const fileLevel = schema.properties.workspace;
    const caseLevel = schema.properties.evalcases.items.properties.workspace;
    for (const workspace of [fileLevel, caseLevel]) {
      const [file, block] = workspace.anyOf;
      expect(file.type).toBe('string');
      expect(Object.keys(block.properties)).toEqual([
        'template',
        'repos',
        'isolation',
        'mode',
        'hooks',
        'docker',
        'env',
      ]);
      expect(block.properties.isolation.enum).toEqual(['per_case', 'per_test', 'shared']);
      expect(block.properties.mode.enum).toEqual(['pooled', 'temp']);
      const repo = block.properties.repos.items;
      expect(repo.required).toEqual(['path', 'repo']);
      const hooks = block.properties.hooks.properties;
      expect(Object.keys(hooks)).toEqual([
        'enabled',
        'before_all',
        'before_each',
        'after_each',
        'after_all',
      ]);
      const described = [
        ...Object.values(block.properties),
        ...Object.values(repo.properties),
        ...Object.values(hooks),
        ...Object.values(hooks.before_each.properties),
      ] as { description?: string }[];
      expect(described.filter((property) => !property.description)).toEqual([]);
    }
  });

  it('describes the targets and config files', () => {
    const schemas = buildJsonSchemas();
    const targets = JSON.parse(schemas['targets.schema.json']!);
    expect(targets.properties.$schema.enum).toEqual(['agentv-targets-v2.2', 'agentv-targets-v2']);
    expect(targets.properties.targets.items.required).toEqual(['name', 'provider']);
    const config = JSON.parse(schemas['config.schema.json']!);
    expect(config.properties.$schema.const).toBe('agentv-config-v2');
    expect(config.properties.guideline_patterns.type).toBe('array');
  });
});
