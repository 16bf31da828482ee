import { z } from 'zod';
import { configFileSchema } from '../config/config-schema.js';
import { evalFileSchema } from '../eval-file/eval-file-schema.js';
import { targetsFileSchema } from '../targets/targets-schema.js';

/** The JSON Schema files shipped in `@agentv/core/schemas/`, by file name. */
export const JSON_SCHEMA_FILES = ['eval.schema.json', 'targets.schema.json', 'config.schema.json'];

const SOURCES: Record<string, { schema: z.ZodType; title: string; description: string }> = {
  'eval.schema.json': {
    schema: evalFileSchema,
    title: 'AgentV eval file',
    description: 'Eval cases: what the agent is asked, what a good answer is, how it is graded.',
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
 * The JSON Schemas (draft-07, which YAML editors support) of the eval,
 * targets and config files, generated from their zod schemas: file name →
 * file text. Unknown keys stay allowed, as the loaders only warn about them.
 */
export function buildJsonSchemas(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of JSON_SCHEMA_FILES) {
    const { schema, title, description } = SOURCES[name]!;
    const generated = z.toJSONSchema(schema, { target: 'draft-7', io: 'input' });
    const { $schema, ...rest } = generated;
    const document: Record<string, unknown> = { $schema, title, description, ...rest };
    // zod cannot say "one of these keys": an eval file needs inline cases or a dataset.
    if (name === 'eval.schema.json') {
      document.anyOf = [{ required: ['evalcases'] }, { required: ['cases'] }];
    }
    files[name] = `${formatJson(document, '', 0)}\n`;
  }
  return files;
}

const LINE_WIDTH = 100;

/**
 * JSON laid out as the repository's formatter (biome) lays it out, so the
 * generated files pass `biome check`: objects one key per line, lists of
 * plain values on one line when they fit, else one item per line.
 * `prefixWidth` is the width of what precedes the value on its line.
 */
function formatJson(value: unknown, indent: string, prefixWidth: number): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every((item) => typeof item !== 'object' || item === null)) {
      const flat = `[${value.map((item) => JSON.stringify(item)).join(', ')}]`;
      // The trailing comma that may follow counts toward the width.
      if (prefixWidth + flat.length + 1 <= LINE_WIDTH) return flat;
    }
    const items = value.map((item) => `${inner}${formatJson(item, inner, inner.length)}`);
    return `[\n${items.join(',\n')}\n${indent}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const lines = entries.map(([key, item]) => {
      const head = `${inner}${JSON.stringify(key)}: `;
      return `${head}${formatJson(item, inner, head.length)}`;
    });
    return `{\n${lines.join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}
