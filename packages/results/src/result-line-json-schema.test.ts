import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildResultLineJsonSchema, RESULT_LINE_SCHEMA_FILE } from './result-line-json-schema.js';

const shipped = path.join(import.meta.dirname, '..', 'schemas', RESULT_LINE_SCHEMA_FILE);

describe('the shipped result-line JSON Schema', () => {
  it('matches the zod schema', async () => {
    const committed = await readFile(shipped, 'utf8').catch(() => '');
    // Stale: run `pnpm --filter @agentv/results build` (it runs scripts/generate-schema.mjs).
    expect(committed, `schemas/${RESULT_LINE_SCHEMA_FILE} is stale; rebuild @agentv/results`).toBe(
      buildResultLineJsonSchema(),
    );
  });

  it('requires what every line holds and allows keys of newer versions', () => {
    const schema = JSON.parse(buildResultLineJsonSchema());
    expect(schema).toMatchObject({
      $schema: 'http://json-schema.org/draft-07/schema#',
      title: 'AgentV result line',
      type: 'object',
    });
    expect(schema.required).toEqual([
      'timestamp',
      'eval_id',
      'dataset',
      'target',
      'score',
      'passed',
      'hits',
      'misses',
      'reasoning',
      'candidate_answer',
      'evaluator_results',
      'attempts',
      'duration_ms',
      'trace_summary',
    ]);
    expect(schema.additionalProperties).toBeUndefined();
    expect(schema.properties.cached).toMatchObject({ const: true });
    expect(schema.properties.run.required).toEqual(['id', 'cases']);
  });
});
