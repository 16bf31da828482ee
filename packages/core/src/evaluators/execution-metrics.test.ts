import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../trace/trace-event.js';
import { costEvaluator } from './cost.js';
import { executionMetricsEvaluator } from './execution-metrics.js';
import { latencyEvaluator } from './latency.js';
import { makeConfig, makeContext, toolCall } from './test-support/make-context.js';

const step: TraceEvent = { type: 'model_step', timestamp: '2025-01-01T00:00:00.000Z', name: 'gpt' };
const trace: TraceEvent[] = [
  step,
  toolCall('read_file', { path: 'a' }),
  step,
  toolCall('shell'),
  step,
];
const measured = makeContext({
  trace,
  usage: { inputTokens: 1200, outputTokens: 300 },
  costUsd: 0.0123,
  durationMs: 850,
});

function grade(options: Record<string, unknown>, context = measured) {
  return executionMetricsEvaluator.evaluate(makeConfig('execution_metrics', options), context);
}

describe('execution_metrics', () => {
  it('reports one hit per limit met, with the measured value', async () => {
    const result = await grade({
      max_tokens: 1500,
      max_input_tokens: 1200,
      max_output_tokens: 300,
      max_cost_usd: 0.05,
      max_duration_ms: 1000,
      max_tool_calls: 2,
      max_steps: 5,
      max_llm_calls: 3,
    });
    expect(result.score).toBe(1);
    expect(result.misses).toEqual([]);
    expect(result.hits).toEqual([
      'Tokens 1,500 <= 1,500 (max_tokens)',
      'Input tokens 1,200 <= 1,200 (max_input_tokens)',
      'Output tokens 300 <= 300 (max_output_tokens)',
      'Cost $0.0123 <= $0.0500 (max_cost_usd)',
      'Duration 850ms <= 1000ms (max_duration_ms)',
      'Tool calls 2 <= 2 (max_tool_calls)',
      'Steps 5 <= 5 (max_steps)',
      'LLM calls 3 <= 3 (max_llm_calls)',
    ]);
  });

  it('fails when any limit is exceeded, scoring the share met', async () => {
    const result = await grade({
      max_tokens: 1000,
      max_cost_usd: 1,
      max_steps: 4,
      max_tool_calls: 9,
      max_duration_ms: 5000,
    });
    expect(result.misses).toEqual(['Tokens 1,500 > 1,000 (max_tokens)', 'Steps 5 > 4 (max_steps)']);
    expect(result.score).toBeCloseTo(3 / 5);
    expect(result.verdict).toBe('fail');
  });

  it('never passes a metric the provider did not report', async () => {
    const bare = makeContext({ durationMs: 10 });
    const result = await grade(
      {
        max_tokens: 10,
        max_cost_usd: 1,
        max_tool_calls: 1,
        max_llm_calls: 1,
        max_duration_ms: 100,
      },
      bare,
    );
    expect(result.misses).toEqual([
      'Tokens not reported by the provider, so max_tokens 10 cannot be checked',
      'Cost not reported by the provider, so max_cost_usd $1.0000 cannot be checked',
      'Tool calls not reported by the provider, so max_tool_calls 1 cannot be checked',
      'LLM calls not reported by the provider, so max_llm_calls 1 cannot be checked',
    ]);
    expect(result.verdict).toBe('fail');
  });

  it('counts assistant output messages as LLM calls when the trace has no model turns', async () => {
    const context = makeContext({
      trace: [toolCall('search')],
      outputMessages: [
        { role: 'assistant', toolCalls: [{ tool: 'search' }] },
        { role: 'assistant', content: 'done' },
      ],
    });
    const result = await grade({ max_llm_calls: 2, max_steps: 3 }, context);
    expect(result.hits).toEqual(['Steps 3 <= 3 (max_steps)', 'LLM calls 2 <= 2 (max_llm_calls)']);
  });

  it('counts no tool calls for an agent that sent its messages without any, as AgentV 4.x does', async () => {
    const context = makeContext({ outputMessages: [{ role: 'assistant', content: 'Hello!' }] });
    const result = await grade({ max_tool_calls: 10, max_steps: 1 }, context);
    expect(result.hits).toEqual([
      'Tool calls 0 <= 10 (max_tool_calls)',
      'Steps 1 <= 1 (max_steps)',
    ]);
  });

  it("checks upstream's exploration ratio", async () => {
    const near = await grade({ target_exploration_ratio: 0.6 });
    expect(near.hits).toEqual(['Exploration ratio 0.50 within 0.2 of 0.6']);
    const far = await grade({ target_exploration_ratio: 1, exploration_tolerance: 0.1 });
    expect(far.misses).toEqual(['Exploration ratio 0.50 not within 0.1 of 1']);
  });

  it('validates its limits', () => {
    const validate = (options: Record<string, unknown>) =>
      executionMetricsEvaluator
        .validate?.(makeConfig('execution_metrics', options))
        .map((issue) => issue.message);
    expect(validate({ max_tokens: 1.5, max_cost_usd: -1 })).toEqual([
      '"max_tokens" must be a whole number >= 0, got 1.5',
      '"max_cost_usd" must be a number >= 0, got -1',
    ]);
    expect(validate({})).toEqual([expect.stringContaining('execution_metrics checks nothing')]);
  });
});

describe('latency and cost', () => {
  it('latency passes at or under threshold milliseconds', async () => {
    const pass = await latencyEvaluator.evaluate(
      makeConfig('latency', { threshold: 850 }),
      measured,
    );
    expect(pass).toEqual({ score: 1, hits: ['Duration 850ms <= 850ms (threshold)'], misses: [] });
    const fail = await latencyEvaluator.evaluate(
      makeConfig('latency', { threshold: 500 }),
      measured,
    );
    expect(fail).toEqual({ score: 0, hits: [], misses: ['Duration 850ms > 500ms (threshold)'] });
  });

  it('cost passes at or under threshold (or upstream budget) USD', async () => {
    const pass = await costEvaluator.evaluate(makeConfig('cost', { threshold: 0.02 }), measured);
    expect(pass.score).toBe(1);
    const fail = await costEvaluator.evaluate(makeConfig('cost', { budget: 0.01 }), measured);
    expect(fail.misses).toEqual(['Cost $0.0123 > $0.0100 (budget)']);
    const unknown = await costEvaluator.evaluate(
      makeConfig('cost', { threshold: 1 }),
      makeContext(),
    );
    expect(unknown.score).toBe(0);
    expect(unknown.misses[0]).toContain('not reported');
  });

  it('requires its threshold', () => {
    expect(latencyEvaluator.validate?.(makeConfig('latency'))[0]?.message).toContain(
      '"threshold" is missing',
    );
    expect(
      costEvaluator.validate?.(makeConfig('cost', { threshold: 1, budget: 1 }))[0]?.message,
    ).toContain('not both');
  });
});
