import type { Issue } from '../errors/input-issue.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import type { Evaluator } from './evaluator.js';
import { optionIssue, throwIfInvalid } from './evaluator-options.js';
import { immediateEvaluator } from './immediate-evaluator.js';
import { measureMetrics } from './measured-metrics.js';
import { checkThreshold, EXECUTION_THRESHOLDS, thresholdIssue } from './metric-thresholds.js';

const DURATION = EXECUTION_THRESHOLDS.find((threshold) => threshold.option === 'max_duration_ms')!;

/**
 * `latency` (promptfoo's): the case's duration must be at most `threshold`
 * milliseconds. Score 1 or 0, with the measured duration.
 */
export const latencyEvaluator: Evaluator = immediateEvaluator({
  type: 'latency',
  options: ['threshold'],
  validate: latencyIssues,
  evaluateNow(config, context) {
    throwIfInvalid(latencyIssues(config));
    const hits: string[] = [];
    const misses: string[] = [];
    const limit = config.threshold as number;
    const met = checkThreshold(
      { ...DURATION, option: 'threshold' },
      limit,
      measureMetrics(context),
      hits,
      misses,
    );
    return { score: met ? 1 : 0, hits, misses };
  },
});

function latencyIssues(config: EvaluatorConfig): Issue[] {
  if (config.threshold === undefined) {
    return [
      optionIssue(
        'threshold',
        '"threshold" is missing; give the most milliseconds the case may take',
      ),
    ];
  }
  return thresholdIssue(config, 'threshold');
}
