import type { z } from 'zod';
import { configFileSchema } from '../config/config-schema.js';
import { evalFileSchema } from '../eval-file/eval-file-schema.js';
import { targetsFileSchema } from '../targets/targets-schema.js';
import { type JsonSchemaFileOptions, jsonSchemaFile } from './json-schema-file.js';

/** The JSON Schema files shipped in `@agentv/core/schemas/`, by file name. */
export const JSON_SCHEMA_FILES = ['eval.schema.json', 'targets.schema.json', 'config.schema.json'];

const SOURCES: Record<string, JsonSchemaFileOptions & { schema: z.ZodType }> = {
  'eval.schema.json': {
    schema: evalFileSchema,
    title: 'AgentV eval file',
    description: 'Eval cases: what the agent is asked, what a good answer is, how it is graded.',
    // zod cannot say "one of these keys": an eval file needs inline cases or a dataset.
    extra: { anyOf: [{ required: ['evalcases'] }, { required: ['cases'] }] },
  },
  'targets.schema.json': {
    schema: targetsFileSchema,
    title: 'AgentV targets file',
    description: 'The agents and models eval cases run against (.agentv/targets.yaml).',
  },
  'config.schema.json': {
    schema: configFileSchema,
    title: 'AgentV config file',
    description: 'Project settings (.agentv/config.yaml).',
  },
};

/**
 * The JSON Schemas of the eval, targets and config files, generated from
 * their zod schemas: file name → file text. Unknown keys stay allowed, as the
 * loaders only warn about them.
 */
export function buildJsonSchemas(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of JSON_SCHEMA_FILES) {
    const { schema, ...options } = SOURCES[name]!;
    files[name] = jsonSchemaFile(schema, options);
  }
  return files;
}
