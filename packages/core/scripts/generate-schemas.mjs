#!/usr/bin/env node
// Writes packages/core/schemas/*.schema.json from the built zod schemas.
// Runs after `tsc` in this package's build; a test fails when the committed
// files differ from what this would write.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildJsonSchemas } from '../dist/schemas/json-schemas.js';

const outDir = path.join(import.meta.dirname, '..', 'schemas');
await mkdir(outDir, { recursive: true });
for (const [name, text] of Object.entries(buildJsonSchemas())) {
  const file = path.join(outDir, name);
  const current = await readFile(file, 'utf8').catch(() => undefined);
  // Unchanged files are left alone so their timestamps stay put.
  if (current !== text) await writeFile(file, text);
}
