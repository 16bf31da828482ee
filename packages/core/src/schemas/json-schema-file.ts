import { z } from 'zod';

/** What a JSON Schema file says about itself, and keywords zod cannot express. */
export interface JsonSchemaFileOptions {
  title: string;
  description: string;
  /** Keywords added at the top level (e.g. an `anyOf` of required keys). */
  extra?: Record<string, unknown>;
}

/**
 * The text of a shipped JSON Schema file (draft-07, which YAML editors
 * support) generated from a zod schema's input side, so unknown keys stay
 * allowed. Laid out as the repository's formatter lays JSON out, so a
 * generated file passes `biome check` and a test can compare it byte for byte.
 */
export function jsonSchemaFile(schema: z.ZodType, options: JsonSchemaFileOptions): string {
  const generated = z.toJSONSchema(schema, { target: 'draft-7', io: 'input' });
  const { $schema, ...rest } = generated;
  const document: Record<string, unknown> = {
    $schema,
    title: options.title,
    description: options.description,
    ...rest,
    ...options.extra,
  };
  return `${formatJson(document, '', 0)}\n`;
}

const LINE_WIDTH = 100;

/**
 * JSON laid out as the repository's formatter (biome) lays it out: objects
 * one key per line, lists of plain values on one line when they fit, else one
 * item per line. `prefixWidth` is the width of what precedes the value on its line.
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
