import { describe, expect, it } from 'vitest';
import { createEvaluatorRegistry, defaultEvaluators } from './evaluator-registry.js';
import { jsonSchemaEvaluator } from './json-schema.js';
import { makeConfig, makeContext } from './test-support/make-context.js';

const registry = createEvaluatorRegistry(defaultEvaluators());
const schema = {
  type: 'object',
  required: ['order_id'],
  properties: { order_id: { type: 'integer' } },
};

const grade = (answer: string, options: Record<string, unknown> = { schema }) =>
  jsonSchemaEvaluator.evaluate(
    makeConfig('json_schema', options),
    makeContext({ candidateAnswer: answer }),
  );

describe('json_schema', () => {
  it('passes an answer that matches the schema', async () => {
    expect(await grade(' {"order_id": 42} ')).toEqual({
      score: 1,
      hits: ['Answer matches the JSON schema'],
      misses: [],
    });
  });

  it('lists the violations of an answer that does not match', async () => {
    const result = await grade('{"order_id": "42"}');
    expect(result.score).toBe(0);
    expect(result.misses).toEqual(['Schema violation at /order_id: must be integer']);
    expect((await grade('not json')).misses[0]).toMatch(/^Answer is not valid JSON/);
  });

  it('reads a schema file relative to the eval file', async () => {
    const options = { schema: './graders/answer-schema.json' };
    expect((await grade('{"order_id": 1, "status": "refunded"}', options)).score).toBe(1);
    expect((await grade('{"order_id": 1, "status": "lost"}', options)).misses).toEqual([
      'Schema violation at /status: must be equal to one of the allowed values',
    ]);
    await expect(grade('{}', { schema: './missing.json' })).rejects.toThrow(
      /schema file \.\/missing\.json cannot be read/,
    );
  });

  it('reports an invalid schema before the run', () => {
    expect(
      messagesOf(registry.validate(makeConfig('json_schema', { schema: { type: 'banana' } }))),
    ).toEqual([expect.stringMatching(/^"schema" is not a valid JSON Schema: /)]);
    expect(messagesOf(registry.validate(makeConfig('json_schema')))).toEqual([
      expect.stringContaining('"schema" is missing'),
    ]);
  });
});

function messagesOf(issues: readonly { message: string }[]): string[] {
  return issues.map((issue) => issue.message);
}
