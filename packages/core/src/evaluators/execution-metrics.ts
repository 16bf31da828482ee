import type { Issue } from '../errors/input-issue.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import type { Evaluator } from './evaluator.js';
import { describe, optionIssue, throwIfInvalid } from './evaluator-options.js';
import { explorationRatio } from './exploration-ratio.js';
import { immediateEvaluator } from './immediate-evaluator.js';
import { measureMetrics } from './measured-metrics.js';
import { checkThreshold, EXECUTION_THRESHOLDS, thresholdIssue } from './metric-thresholds.js';

const EXPLORATION = ['target_exploration_ratio', 'exploration_tolerance'];

/**
 * `execution_metrics`: upper limits on what answering cost — `max_tokens`,
 * `max_input_tokens`, `max_output_tokens`, `max_cost_usd`, `max_duration_ms`,
 * `max_tool_calls`, `max_steps` (tool calls + model turns), `max_llm_calls` — and
 * upstream AgentV's `target_exploration_ratio` (± `exploration_tolerance`, default
 * 0.2: the share of read-only tool calls). One hit or miss per limit with the
 * measured value; a metric the provider did not report is a miss. Score = limits
 * met / limits, and the verdict is `fail` when any is missed.
 */
export const executionMetricsEvaluator: Evaluator = immediateEvaluator({
  type: 'execution_metrics',
  options: [...EXECUTION_THRESHOLDS.map((threshold) => threshold.option), ...EXPLORATION],
  validate: optionsIssues,
  evaluateNow(config, context) {
    throwIfInvalid(optionsIssues(config));
    const metrics = measureMetrics(context);
    const hits: string[] = [];
    const misses: string[] = [];
    let checks = 0;
    let met = 0;
    for (const threshold of EXECUTION_THRESHOLDS) {
      const limit = config[threshold.option];
      if (typeof limit !== 'number') continue;
      checks++;
      if (checkThreshold(threshold, limit, metrics, hits, misses)) met++;
    }
    const target = config.target_exploration_ratio;
    if (typeof target === 'number') {
      checks++;
      const tolerance =
        typeof config.exploration_tolerance === 'number' ? config.exploration_tolerance : 0.2;
      const ratio = context.trace ? explorationRatio(context.trace) : undefined;
      if (ratio === undefined) {
        misses.push('Exploration ratio not reported: the answer has no tool calls');
      } else if (Math.abs(ratio - target) <= tolerance) {
        met++;
        hits.push(`Exploration ratio ${ratio.toFixed(2)} within ${tolerance} of ${target}`);
      } else {
        misses.push(`Exploration ratio ${ratio.toFixed(2)} not within ${tolerance} of ${target}`);
      }
    }
    const score = met / checks;
    return { score, hits, misses, ...(met < checks ? { verdict: 'fail' as const } : {}) };
  },
});

function optionsIssues(config: EvaluatorConfig): Issue[] {
  const issues = EXECUTION_THRESHOLDS.flatMap((threshold) =>
    thresholdIssue(config, threshold.option, threshold.whole),
  );
  issues.push(...thresholdIssue(config, 'exploration_tolerance'));
  const target = config.target_exploration_ratio;
  if (target !== undefined && !(typeof target === 'number' && target >= 0 && target <= 1)) {
    issues.push(
      optionIssue(
        'target_exploration_ratio',
        `"target_exploration_ratio" must be a number from 0 to 1, got ${describe(target)}`,
      ),
    );
  }
  const limits = [
    ...EXECUTION_THRESHOLDS.map((threshold) => threshold.option),
    'target_exploration_ratio',
  ];
  if (!limits.some((option) => config[option] !== undefined)) {
    issues.push({
      severity: 'error',
      path: [],
      message: `execution_metrics checks nothing; give at least one of ${limits.join(', ')}`,
    });
  }
  return issues;
}
