import type { Issue } from '../errors/input-issue.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import { describe, optionIssue } from './evaluator-options.js';
import type { MeasuredMetrics } from './measured-metrics.js';

/** One upper limit on a measured metric. */
export interface MetricThreshold {
  /** The option that sets it, e.g. `max_tokens`. */
  option: string;
  metric: keyof MeasuredMetrics;
  /** How the metric is named in hits and misses. */
  label: string;
  /** The metric's value as text: `1,234`, `$0.0123`, `850ms`. */
  format: (value: number) => string;
  /** Whole numbers only (counts), else any number >= 0. */
  whole?: boolean;
}

const count = (value: number) => value.toLocaleString('en-US');
const ms = (value: number) => `${Math.round(value)}ms`;

/** Dollars with enough decimals that a cheap answer does not show as $0.0000. */
export function usd(value: number): string {
  if (value <= 0) return '$0';
  const decimals = Math.min(10, Math.max(4, Math.ceil(-Math.log10(value)) + 1));
  return `$${value.toFixed(decimals)}`;
}

export const EXECUTION_THRESHOLDS: readonly MetricThreshold[] = [
  { option: 'max_tokens', metric: 'tokens', label: 'Tokens', format: count, whole: true },
  {
    option: 'max_input_tokens',
    metric: 'inputTokens',
    label: 'Input tokens',
    format: count,
    whole: true,
  },
  {
    option: 'max_output_tokens',
    metric: 'outputTokens',
    label: 'Output tokens',
    format: count,
    whole: true,
  },
  { option: 'max_cost_usd', metric: 'costUsd', label: 'Cost', format: usd },
  { option: 'max_duration_ms', metric: 'durationMs', label: 'Duration', format: ms },
  {
    option: 'max_tool_calls',
    metric: 'toolCalls',
    label: 'Tool calls',
    format: count,
    whole: true,
  },
  { option: 'max_steps', metric: 'steps', label: 'Steps', format: count, whole: true },
  { option: 'max_llm_calls', metric: 'llmCalls', label: 'LLM calls', format: count, whole: true },
];

/** The problem with a limit option's value, if any: a number >= 0 (whole for counts). */
export function thresholdIssue(config: EvaluatorConfig, option: string, whole = false): Issue[] {
  const value = config[option];
  if (value === undefined) return [];
  const valid =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    value >= 0 &&
    (!whole || Number.isInteger(value));
  if (valid) return [];
  const kind = whole ? 'a whole number >= 0' : 'a number >= 0';
  return [optionIssue(option, `"${option}" must be ${kind}, got ${describe(value)}`)];
}

/** One hit or miss for `threshold` set to `limit`: the measured value against it, or "not reported". */
export function checkThreshold(
  threshold: MetricThreshold,
  limit: number,
  metrics: MeasuredMetrics,
  hits: string[],
  misses: string[],
): boolean {
  const value = metrics[threshold.metric];
  const { label, format, option } = threshold;
  if (value === undefined) {
    misses.push(
      `${label} not reported by the provider, so ${option} ${format(limit)} cannot be checked`,
    );
    return false;
  }
  if (value <= limit) {
    hits.push(`${label} ${format(value)} <= ${format(limit)} (${option})`);
    return true;
  }
  misses.push(`${label} ${format(value)} > ${format(limit)} (${option})`);
  return false;
}
