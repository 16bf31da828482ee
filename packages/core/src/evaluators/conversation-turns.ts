import type { Issue } from '../errors/input-issue.js';
import type { Evaluator } from './evaluator.js';
import { EvaluatorError } from './evaluator-error.js';
import { describe } from './evaluator-options.js';
import { immediateEvaluator } from './immediate-evaluator.js';

/**
 * `conversation_turns`: the number of answered turns of a conversation is within
 * `min` and/or `max` (whole numbers, at least one given). Score 1 or 0.
 */
export const conversationTurnsEvaluator: Evaluator = immediateEvaluator({
  type: 'conversation_turns',
  options: ['min', 'max'],
  validate(config) {
    const issues: Issue[] = [];
    for (const key of ['min', 'max'] as const) {
      const value = config[key];
      if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0)) {
        issues.push({
          severity: 'error',
          path: [key],
          message: `"${key}" must be a whole number of turns >= 0, got ${describe(value)}`,
        });
      }
    }
    if (config.min === undefined && config.max === undefined) {
      issues.push({
        severity: 'error',
        path: ['type'],
        message: 'needs `min`, `max` or both',
        hint: 'e.g. `{type: conversation_turns, max: 6}`: the agent should finish within 6 turns',
      });
    }
    return issues;
  },
  evaluateNow(config, context) {
    const conversation = context.conversation;
    if (conversation === undefined || conversation.turn !== undefined) {
      throw new EvaluatorError('conversation_turns grades a whole conversation', {
        hint: "put it in the evaluators of a case with `turns:` or `simulated_user:`, not in a turn's or a plain case's",
      });
    }
    const count = conversation.turns.length;
    const min = config.min as number | undefined;
    const max = config.max as number | undefined;
    const bounds = [
      min === undefined ? undefined : `at least ${min}`,
      max === undefined ? undefined : `at most ${max}`,
    ]
      .filter(Boolean)
      .join(' and ');
    const ok = (min === undefined || count >= min) && (max === undefined || count <= max);
    const text = `${count} turn${count === 1 ? '' : 's'} (expected ${bounds})`;
    return ok ? { score: 1, hits: [text], misses: [] } : { score: 0, hits: [], misses: [text] };
  },
});
