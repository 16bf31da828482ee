import type { Issue } from '../errors/input-issue.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import type { Evaluator } from './evaluator.js';
import { optionIssue, throwIfInvalid } from './evaluator-options.js';
import { immediateEvaluator } from './immediate-evaluator.js';
import { measureMetrics } from './measured-metrics.js';
import { checkThreshold, EXECUTION_THRESHOLDS, thresholdIssue } from './metric-thresholds.js';

const COST = EXECUTION_THRESHOLDS.find((threshold) => threshold.option === 'max_cost_usd')!;

/**
 * `cost` (promptfoo's): the answer's cost must be at most `threshold` USD
 * (`budget`, upstream AgentV's name, is the same). Score 1 or 0, with the
 * measured cost; a provider that reports no cost is a miss.
 */
export const costEvaluator: Evaluator = immediateEvaluator({
  type: 'cost',
  options: ['threshold', 'budget'],
  validate: costIssues,
  evaluateNow(config, context) {
    throwIfInvalid(costIssues(config));
    const option = config.threshold !== undefined ? 'threshold' : 'budget';
    const hits: string[] = [];
    const misses: string[] = [];
    const limit = config[option] as number;
    const met = checkThreshold({ ...COST, option }, limit, measureMetrics(context), hits, misses);
    return { score: met ? 1 : 0, hits, misses };
  },
});

function costIssues(config: EvaluatorConfig): Issue[] {
  if (config.threshold === undefined && config.budget === undefined) {
    return [
      optionIssue('threshold', '"threshold" is missing; give the most USD the answer may cost'),
    ];
  }
  if (config.threshold !== undefined && config.budget !== undefined) {
    return [optionIssue('budget', 'give "threshold" or "budget" (the same limit), not both')];
  }
  return [...thresholdIssue(config, 'threshold'), ...thresholdIssue(config, 'budget')];
}
