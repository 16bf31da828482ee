import { describe, expect, it } from 'vitest';
import { isJsonEvaluator } from './is-json.js';
import { makeConfig, makeContext } from './test-support/make-context.js';

const config = makeConfig('is_json');

describe('is_json', () => {
  it('scores 1 for a JSON answer, surrounding whitespace allowed', async () => {
    const result = await isJsonEvaluator.evaluate(
      config,
      makeContext({ candidateAnswer: '\n {"refund": true}\n' }),
    );
    expect(result).toEqual({ score: 1, hits: ['Answer is valid JSON'], misses: [] });
  });

  it('scores 0 with the parse error for prose', async () => {
    const result = await isJsonEvaluator.evaluate(
      config,
      makeContext({ candidateAnswer: 'Sure! {"a": 1}' }),
    );
    expect(result.score).toBe(0);
    expect(result.misses[0]).toMatch(/^Answer is not valid JSON: /);
  });

  it('scores 0 for an empty answer', async () => {
    const result = await isJsonEvaluator.evaluate(config, makeContext({ candidateAnswer: '  ' }));
    expect(result).toEqual({ score: 0, hits: [], misses: ['Answer is empty, not JSON'] });
  });
});
