import type { Evaluator } from './evaluator.js';
import { immediateEvaluator } from './immediate-evaluator.js';

/** `is_json`: the answer, trimmed, must parse as JSON. Score 1 or 0. */
export const isJsonEvaluator: Evaluator = immediateEvaluator({
  type: 'is_json',
  options: [],
  validate: () => [],
  evaluateNow(_config, context) {
    const answer = context.candidateAnswer.trim();
    if (answer === '') return { score: 0, hits: [], misses: ['Answer is empty, not JSON'] };
    try {
      JSON.parse(answer);
      return { score: 1, hits: ['Answer is valid JSON'], misses: [] };
    } catch (error) {
      return {
        score: 0,
        hits: [],
        misses: [`Answer is not valid JSON: ${(error as Error).message}`],
      };
    }
  },
});
