import type { Evaluator } from './evaluator.js';
import { EvaluatorError } from './evaluator-error.js';
import { immediateEvaluator } from './immediate-evaluator.js';

/**
 * `goal_reached`: a conversation case's simulated user said its goal was reached
 * (`conversation_end: goal_reached`). Score 1 or 0; on any other case it cannot run.
 */
export const goalReachedEvaluator: Evaluator = immediateEvaluator({
  type: 'goal_reached',
  options: [],
  validate: () => [],
  evaluateNow(_config, context) {
    const conversation = context.conversation;
    if (conversation === undefined || conversation.turn !== undefined) {
      throw new EvaluatorError('goal_reached grades a whole conversation', {
        hint: "put it in the evaluators of a case with `simulated_user:`, not in a turn's or a plain case's",
      });
    }
    return conversation.end === 'goal_reached'
      ? { score: 1, hits: ['The simulated user reached its goal'], misses: [] }
      : {
          score: 0,
          hits: [],
          misses: [`The conversation ended with ${conversation.end}, not goal_reached`],
        };
  },
});
