#!/usr/bin/env node
// Writes packages/results/schemas/result-line.schema.json from the built zod schema.
// Runs after `tsc` in this package's build; a test fails when the committed file
// differs from what this would write.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  buildResultLineJsonSchema,
  RESULT_LINE_SCHEMA_FILE,
} from '../dist/result-line-json-schema.js';

const outDir = path.join(import.meta.dirname, '..', 'schemas');
await mkdir(outDir, { recursive: true });
const file = path.join(outDir, RESULT_LINE_SCHEMA_FILE);
const text = buildResultLineJsonSchema();
const current = await readFile(file, 'utf8').catch(() => undefined);
// An unchanged file is left alone so its timestamp stays put.
if (current !== text) await writeFile(file, text);
