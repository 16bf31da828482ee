import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { buildResultLineJsonSchema } from './result-line-json-schema.js';

interface SchemaNode {
  $ref?: string;
  anyOf?: SchemaNode[];
  type?: string;
  items?: SchemaNode;
  properties?: Record<string, SchemaNode>;
  definitions?: Record<string, SchemaNode>;
}

/** Every field path of the schema as the README writes it: `run.id`, `evaluator_results[].name`. */
function fieldPaths(root: SchemaNode): string[] {
  const paths: string[] = [];
  const walk = (node: SchemaNode, prefix: string, seen: ReadonlySet<string>): void => {
    if (node.$ref !== undefined) {
      const name = node.$ref.split('/').at(-1)!;
      // A composite's members repeat the shape of the entry they are in.
      if (!seen.has(name)) walk(root.definitions![name]!, prefix, new Set([...seen, name]));
      return;
    }
    for (const branch of node.anyOf ?? []) walk(branch, prefix, seen);
    if (node.items) walk(node.items, `${prefix}[]`, seen);
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const field = prefix === '' ? key : `${prefix}.${key}`;
      paths.push(field);
      walk(child, field, seen);
    }
  };
  walk(root, '', new Set());
  return paths;
}

it('the README documents every field of the result line', async () => {
  const readme = await readFile(
    path.join(import.meta.dirname, '..', '..', '..', 'README.md'),
    'utf8',
  );
  const start = readme.indexOf('\n### Result files\n');
  expect(start, 'README has a "### Result files" section').toBeGreaterThan(0);
  const section = readme.slice(start, readme.indexOf('\n## ', start));
  const fields = fieldPaths(JSON.parse(buildResultLineJsonSchema()));
  expect(fields).toContain('evaluator_results[].negated');
  expect(fields).toContain('repeats.runs[].duration_ms');
  const undocumented = fields.filter((field) => !section.includes(`| \`${field}\` `));
  expect(undocumented, 'fields missing from the table in README "Result files"').toEqual([]);
});
