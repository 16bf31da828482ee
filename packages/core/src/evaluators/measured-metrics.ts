import type { EvaluationContext } from './evaluator.js';

/** What a run measured of one answer; a metric the provider did not report is undefined. */
export interface MeasuredMetrics {
  /** Input + output tokens (the provider's total when it gives one). */
  tokens?: number;
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
  durationMs?: number;
  /** `tool_call` events of the trace; without a trace, the tool calls of the output messages. */
  toolCalls?: number;
  /** Model turns: `model_step` events, else assistant output messages. */
  llmCalls?: number;
  /** Tool calls + model turns. */
  steps?: number;
}

/** The metrics of the answer graded in `context`. */
export function measureMetrics(context: EvaluationContext): MeasuredMetrics {
  const metrics: MeasuredMetrics = {};
  const usage = context.usage;
  if (usage?.inputTokens !== undefined) metrics.inputTokens = usage.inputTokens;
  if (usage?.outputTokens !== undefined) metrics.outputTokens = usage.outputTokens;
  if (usage?.totalTokens !== undefined) metrics.tokens = usage.totalTokens;
  else if (usage?.inputTokens !== undefined || usage?.outputTokens !== undefined) {
    metrics.tokens = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
  }
  if (context.costUsd !== undefined) metrics.costUsd = context.costUsd;
  if (context.durationMs !== undefined) metrics.durationMs = context.durationMs;
  const llmCalls = countModelTurns(context);
  if (llmCalls !== undefined) metrics.llmCalls = llmCalls;
  if (context.trace !== undefined) {
    metrics.toolCalls = context.trace.filter((event) => event.type === 'tool_call').length;
  } else if (context.outputMessages !== undefined && context.outputMessages.length > 0) {
    // An agent that reported its messages reported its tool calls too: none, as AgentV 4.x counts.
    metrics.toolCalls = context.outputMessages.reduce(
      (sum, message) => sum + (message.toolCalls?.length ?? 0),
      0,
    );
  }
  if (metrics.toolCalls !== undefined && llmCalls !== undefined) {
    metrics.steps = metrics.toolCalls + llmCalls;
  }
  return metrics;
}

function countModelTurns(context: EvaluationContext): number | undefined {
  const steps = context.trace?.filter((event) => event.type === 'model_step').length ?? 0;
  if (steps > 0) return steps;
  const assistant = context.outputMessages?.filter((message) => message.role === 'assistant');
  return assistant !== undefined && assistant.length > 0 ? assistant.length : undefined;
}
