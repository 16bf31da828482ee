import type { CollectedTrace, TokenUsage, TraceEvent } from '@agentv/core/provider-utils';
import { type OtlpSpan, STATUS_ERROR } from './otlp-span.js';

/** What a span is, for the trace: a tool call, a model call, or neither. */
interface ToolCall {
  name: string;
  id?: string;
  input?: unknown;
  output?: unknown;
}

interface ModelCall {
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
  text?: string;
}

/** GenAI operations that call a model (`gen_ai.operation.name`). */
const MODEL_OPERATIONS = new Set(['chat', 'text_completion', 'generate_content', 'embeddings']);

/** An event with what orders it: its time, its span's start, the span's arrival, its place in the span. */
interface Pending {
  ms: number;
  spanStart: number;
  seq: number;
  event: TraceEvent;
}

/** Collects a call's spans as they arrive, mapped at once so that only their events are kept. */
export interface SpanCollector {
  add(spans: readonly OtlpSpan[]): void;
  finish(): CollectedTrace;
}

/**
 * The trace events of a call's spans, in time order: a `tool_call` at a tool
 * span's start and a `tool_result` at its end (GenAI `execute_tool`, the AI
 * SDK's `ai.toolCall`, OpenInference `TOOL`), a `model_step` per model call
 * with its token usage, and an `error` at the end of every span whose status
 * is an error. Each event's `metadata` names its span (`trace_id`, `span_id`)
 * and `duration_ms`. Usage is summed over the model calls.
 */
export function spanEvents(spans: readonly OtlpSpan[]): CollectedTrace {
  const collector = createSpanCollector();
  collector.add(spans);
  return collector.finish();
}

/**
 * `spanEvents` batch by batch: `add` maps each batch as it arrives (the spans need not be kept),
 * `finish` orders the events. Events in the same millisecond come in the order of their spans'
 * starts, then of the spans' arrival (the JS SDK, for one, records start times to the millisecond).
 */
export function createSpanCollector(): SpanCollector {
  const pending: Pending[] = [];
  let spanCount = 0;
  let inputTokens: number | undefined;
  let outputTokens: number | undefined;
  const push = (ms: number, span: OtlpSpan, event: TraceEvent) => {
    // Timestamps are ISO strings to the millisecond: events within one are ordered by their span.
    pending.push({ ms: Math.floor(ms), spanStart: span.startMs, seq: pending.length, event });
  };
  return {
    add(spans) {
      spanCount += spans.length;
      for (const span of spans) {
        const metadata: Record<string, unknown> = {
          trace_id: span.traceId,
          span_id: span.spanId,
          duration_ms: round(span.endMs - span.startMs),
        };
        const a = span.attributes;
        const tool = toolCallOf(span, a);
        if (tool !== undefined) {
          const call: TraceEvent = { type: 'tool_call', timestamp: '', name: tool.name, metadata };
          if (tool.id !== undefined) call.id = tool.id;
          if (tool.input !== undefined) call.input = tool.input;
          push(span.startMs, span, call);
          const result: TraceEvent = { type: 'tool_result', timestamp: '', name: tool.name };
          if (tool.id !== undefined) result.id = tool.id;
          if (tool.output !== undefined) result.output = tool.output;
          result.metadata = metadata;
          push(span.endMs, span, result);
        } else {
          const model = modelCallOf(span, a);
          if (model !== undefined) {
            const step: TraceEvent = { type: 'model_step', timestamp: '' };
            if (model.model !== undefined) step.name = model.model;
            if (model.text !== undefined) step.text = model.text;
            if (model.inputTokens !== undefined) {
              inputTokens = (inputTokens ?? 0) + model.inputTokens;
              metadata.input_tokens = model.inputTokens;
            }
            if (model.outputTokens !== undefined) {
              outputTokens = (outputTokens ?? 0) + model.outputTokens;
              metadata.output_tokens = model.outputTokens;
            }
            step.metadata = metadata;
            push(span.startMs, span, step);
          }
        }
        if (span.statusCode === STATUS_ERROR) {
          push(span.endMs, span, {
            type: 'error',
            timestamp: '',
            name: span.name,
            text: span.statusMessage ?? exceptionMessage(span) ?? `span "${span.name}" failed`,
            // The error's own copy: a model step's metadata holds its tokens.
            metadata: {
              trace_id: span.traceId,
              span_id: span.spanId,
              duration_ms: metadata.duration_ms,
            },
          });
        }
      }
    },
    finish() {
      pending.sort((x, y) => x.ms - y.ms || x.spanStart - y.spanStart || x.seq - y.seq);
      const trace: TraceEvent[] = new Array(pending.length);
      // Neighbouring events often share a millisecond: its text is made once.
      let lastMs = Number.NaN;
      let lastIso = '';
      for (let index = 0; index < pending.length; index++) {
        const { ms, event } = pending[index]!;
        if (ms !== lastMs) {
          lastMs = ms;
          lastIso = new Date(ms).toISOString();
        }
        event.timestamp = lastIso;
        trace[index] = event;
      }
      const collected: CollectedTrace = { trace, spanCount };
      if (inputTokens !== undefined || outputTokens !== undefined) {
        const usage: TokenUsage = {};
        if (inputTokens !== undefined) usage.inputTokens = inputTokens;
        if (outputTokens !== undefined) usage.outputTokens = outputTokens;
        if (inputTokens !== undefined && outputTokens !== undefined) {
          usage.totalTokens = inputTokens + outputTokens;
        }
        collected.usage = usage;
      }
      return collected;
    },
  };
}

function toolCallOf(span: OtlpSpan, a: Record<string, unknown>): ToolCall | undefined {
  if (span.name === 'ai.toolCall' || typeof a['ai.toolCall.name'] === 'string') {
    return tool(
      a['ai.toolCall.name'],
      a['ai.toolCall.id'],
      a['ai.toolCall.args'],
      a['ai.toolCall.result'],
    );
  }
  if (a['gen_ai.operation.name'] === 'execute_tool') {
    return tool(
      a['gen_ai.tool.name'],
      a['gen_ai.tool.call.id'],
      a['gen_ai.tool.call.arguments'],
      a['gen_ai.tool.call.result'],
    );
  }
  if (a['openinference.span.kind'] === 'TOOL') {
    return tool(
      a['tool.name'],
      a['tool_call.id'],
      a['tool.parameters'] ?? a['input.value'],
      a['output.value'],
    );
  }
  return undefined;
}

function tool(name: unknown, id: unknown, input: unknown, output: unknown): ToolCall {
  const call: ToolCall = { name: typeof name === 'string' && name !== '' ? name : 'unknown' };
  if (typeof id === 'string' && id !== '') call.id = id;
  if (input !== undefined) call.input = jsonOrText(input);
  if (output !== undefined) call.output = jsonOrText(output);
  return call;
}

function modelCallOf(span: OtlpSpan, a: Record<string, unknown>): ModelCall | undefined {
  const name = span.name;
  if (name.startsWith('ai.')) {
    // The AI SDK's outer spans (`ai.generateText`) repeat the usage of their provider calls
    // (`ai.generateText.doGenerate`, `ai.streamText.doStream`); only the latter count.
    if (!name.endsWith('.doGenerate') && !name.endsWith('.doStream')) return undefined;
    return model(
      a['gen_ai.response.model'] ?? a['ai.model.id'] ?? a['gen_ai.request.model'],
      a['gen_ai.usage.input_tokens'] ?? a['ai.usage.inputTokens'] ?? a['ai.usage.promptTokens'],
      a['gen_ai.usage.output_tokens'] ??
        a['ai.usage.outputTokens'] ??
        a['ai.usage.completionTokens'],
      a['ai.response.text'],
    );
  }
  const operation = a['gen_ai.operation.name'];
  if (typeof operation === 'string' && MODEL_OPERATIONS.has(operation)) {
    return model(
      a['gen_ai.response.model'] ?? a['gen_ai.request.model'],
      a['gen_ai.usage.input_tokens'],
      a['gen_ai.usage.output_tokens'],
      undefined,
    );
  }
  if (a['openinference.span.kind'] === 'LLM') {
    return model(
      a['llm.model_name'],
      a['llm.token_count.prompt'],
      a['llm.token_count.completion'],
      undefined,
    );
  }
  return undefined;
}

function model(name: unknown, input: unknown, output: unknown, text: unknown): ModelCall {
  const call: ModelCall = {};
  if (typeof name === 'string' && name !== '') call.model = name;
  const inputTokens = count(input);
  const outputTokens = count(output);
  if (inputTokens !== undefined) call.inputTokens = inputTokens;
  if (outputTokens !== undefined) call.outputTokens = outputTokens;
  if (typeof text === 'string' && text !== '') call.text = text;
  return call;
}

function count(value: unknown): number | undefined {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number >= 0 ? number : undefined;
}

/** Arguments and results are JSON text in every convention; kept as text when they are not JSON. */
function jsonOrText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const first = value.trimStart()[0];
  if (first !== '{' && first !== '[' && first !== '"') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function exceptionMessage(span: OtlpSpan): string | undefined {
  const exception = span.events.find((event) => event.name === 'exception');
  const message = exception?.attributes['exception.message'];
  return typeof message === 'string' ? message : undefined;
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
