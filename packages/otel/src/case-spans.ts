import { randomBytes } from 'node:crypto';
import type { EvaluationResult, EvaluatorResult } from '@agentv/core';
import type { TraceEvent } from '@agentv/core/provider-utils';

/** An attribute in OTLP/JSON. */
export interface OtlpKeyValue {
  key: string;
  value:
    | { stringValue: string }
    | { intValue: string }
    | { doubleValue: number }
    | { boolValue: boolean };
}

/** A span in OTLP/JSON (ids in hex, times as strings of nanoseconds). */
export interface OtlpJsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 internal, 3 client. */
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpKeyValue[];
  links?: { traceId: string; spanId: string; attributes: OtlpKeyValue[] }[];
  status: { code: number; message?: string };
}

const KIND_INTERNAL = 1;
const KIND_CLIENT = 3;
const STATUS_OK = 1;
const STATUS_ERROR = 2;
/** Most links from the agent call to the agent's own spans. */
const MAX_LINKS = 128;
/** Longest attribute value kept (tool arguments and results, error messages). */
const MAX_VALUE_CHARS = 4096;

/**
 * One case as one trace, in the GenAI semantic conventions: a root span
 * `agentv.eval` (case id, target, score, verdict), a child `invoke_agent <target>`
 * for the agent's answer (its usage; linked to the agent's own spans when they
 * came through AGENTV's receiver) with an `execute_tool <name>` per tool call and
 * a `chat <model>` per model step of the trace, and a child `agentv.grader <name>`
 * per grader with its score and verdict.
 */
export function caseSpans(result: EvaluationResult): OtlpJsonSpan[] {
  const traceId = randomHex(16);
  const end = Date.parse(result.timestamp);
  const trace = result.trace ?? [];
  const firstEvent = trace.length === 0 ? end : Date.parse(trace[0]!.timestamp);
  const start = Math.min(end - result.durationMs, Number.isNaN(firstEvent) ? end : firstEvent);
  const agentEnd = Math.min(end, start + result.durationMs);
  const rootId = spanId();
  const verdict = result.error !== undefined ? 'error' : result.passed ? 'pass' : 'fail';
  const root: OtlpJsonSpan = {
    traceId,
    spanId: rootId,
    name: 'agentv.eval',
    kind: KIND_INTERNAL,
    startTimeUnixNano: nanos(start),
    endTimeUnixNano: nanos(end),
    attributes: attributes({
      'gen_ai.operation.name': 'evaluate',
      'gen_ai.system': 'agentv',
      'agentv.case_id': result.evalId,
      'agentv.dataset': result.dataset,
      'agentv.target': result.target,
      'agentv.score': result.score,
      'agentv.passed': result.passed,
      'agentv.verdict': verdict,
      'agentv.attempts': result.attempts,
      'agentv.duration_ms': result.durationMs,
      'agentv.cost_usd': result.costUsd,
      'agentv.error': result.error,
    }),
    status: result.error === undefined ? { code: STATUS_OK } : error(result.error),
  };
  const agentId = spanId();
  const agent: OtlpJsonSpan = {
    traceId,
    spanId: agentId,
    parentSpanId: rootId,
    name: `invoke_agent ${result.target}`,
    kind: KIND_CLIENT,
    startTimeUnixNano: nanos(start),
    endTimeUnixNano: nanos(agentEnd),
    attributes: attributes({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': result.target,
      'gen_ai.usage.input_tokens': result.usage?.inputTokens,
      'gen_ai.usage.output_tokens': result.usage?.outputTokens,
    }),
    status: { code: STATUS_OK },
  };
  const links = agentLinks(trace);
  if (links.length > 0) agent.links = links;
  const spans = [root, agent, ...traceSpans(trace, traceId, agentId)];
  for (const grader of result.evaluatorResults) {
    spans.push(graderSpan(grader, traceId, rootId, agentEnd, end));
  }
  return spans;
}

function traceSpans(trace: readonly TraceEvent[], traceId: string, parent: string): OtlpJsonSpan[] {
  const spans: OtlpJsonSpan[] = [];
  const open = new Map<string, OtlpJsonSpan>();
  const pending: OtlpJsonSpan[] = [];
  const starts = new Map<OtlpJsonSpan, number>();
  for (const event of trace) {
    const at = Date.parse(event.timestamp);
    if (Number.isNaN(at)) continue;
    if (event.type === 'tool_call') {
      const span: OtlpJsonSpan = {
        traceId,
        spanId: spanId(),
        parentSpanId: parent,
        name: `execute_tool ${event.name ?? 'unknown'}`,
        kind: KIND_INTERNAL,
        startTimeUnixNano: nanos(at),
        endTimeUnixNano: nanos(at + durationOf(event)),
        attributes: attributes({
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': event.name,
          'gen_ai.tool.call.id': event.id,
          'gen_ai.tool.call.arguments': text(event.input),
        }),
        status: { code: STATUS_OK },
      };
      spans.push(span);
      starts.set(span, at);
      if (event.id !== undefined) open.set(event.id, span);
      else pending.push(span);
    } else if (event.type === 'tool_result') {
      const span =
        (event.id !== undefined ? open.get(event.id) : undefined) ??
        pending.find((candidate) => candidate.name === `execute_tool ${event.name ?? 'unknown'}`);
      if (span === undefined) continue;
      if (event.id !== undefined) open.delete(event.id);
      else pending.splice(pending.indexOf(span), 1);
      span.endTimeUnixNano = nanos(Math.max(at, starts.get(span) ?? at));
      const output = text(event.output);
      if (output !== undefined) span.attributes.push(attribute('gen_ai.tool.call.result', output));
    } else if (event.type === 'model_step') {
      const usage = event.metadata ?? {};
      spans.push({
        traceId,
        spanId: spanId(),
        parentSpanId: parent,
        name: `chat ${event.name ?? 'unknown'}`,
        kind: KIND_CLIENT,
        startTimeUnixNano: nanos(at),
        endTimeUnixNano: nanos(at + durationOf(event)),
        attributes: attributes({
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': event.name,
          'gen_ai.usage.input_tokens': usage.input_tokens,
          'gen_ai.usage.output_tokens': usage.output_tokens,
        }),
        status: { code: STATUS_OK },
      });
    } else if (event.type === 'error') {
      const failed = [...spans].reverse().find((span) => span.name.startsWith('execute_tool'));
      if (failed !== undefined && failed.endTimeUnixNano === nanos(at)) {
        failed.status = error(event.text ?? 'failed');
      }
    }
  }
  return spans;
}

function graderSpan(
  grader: EvaluatorResult,
  traceId: string,
  parent: string,
  start: number,
  end: number,
): OtlpJsonSpan {
  return {
    traceId,
    spanId: spanId(),
    parentSpanId: parent,
    name: `agentv.grader ${grader.name}`,
    kind: KIND_INTERNAL,
    startTimeUnixNano: nanos(start),
    endTimeUnixNano: nanos(end),
    attributes: attributes({
      'agentv.grader.name': grader.name,
      'agentv.grader.type': grader.type,
      'agentv.grader.score': grader.score,
      'agentv.grader.weight': grader.weight,
      'agentv.grader.verdict': grader.verdict,
      'agentv.grader.reasoning': grader.reasoning,
    }),
    status: grader.error === undefined ? { code: STATUS_OK } : error(grader.error),
  };
}

/** Links to the spans the agent sent through AgentV's receiver (their ids are in event metadata). */
function agentLinks(trace: readonly TraceEvent[]): NonNullable<OtlpJsonSpan['links']> {
  const seen = new Set<string>();
  const links: NonNullable<OtlpJsonSpan['links']> = [];
  for (const event of trace) {
    const traceId = event.metadata?.trace_id;
    const span = event.metadata?.span_id;
    if (typeof traceId !== 'string' || typeof span !== 'string' || seen.has(span)) continue;
    seen.add(span);
    links.push({ traceId, spanId: span, attributes: [] });
    if (links.length === MAX_LINKS) break;
  }
  return links;
}

function durationOf(event: TraceEvent): number {
  const duration = event.metadata?.duration_ms;
  return typeof duration === 'number' && duration >= 0 ? duration : 0;
}

function attributes(values: Record<string, unknown>): OtlpKeyValue[] {
  const list: OtlpKeyValue[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined || value === null) continue;
    list.push(attribute(key, value));
  }
  return list;
}

function attribute(key: string, value: unknown): OtlpKeyValue {
  if (typeof value === 'boolean') return { key, value: { boolValue: value } };
  if (typeof value === 'number') {
    return Number.isSafeInteger(value)
      ? { key, value: { intValue: String(value) } }
      : { key, value: { doubleValue: value } };
  }
  return { key, value: { stringValue: clip(String(value)) } };
}

function text(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function clip(value: string): string {
  return value.length > MAX_VALUE_CHARS ? `${value.slice(0, MAX_VALUE_CHARS)}…` : value;
}

function error(message: string): OtlpJsonSpan['status'] {
  return { code: STATUS_ERROR, message: clip(message) };
}

function spanId(): string {
  return randomHex(8);
}

/** Random bytes drawn for ids at a time: a `randomBytes` call per span cost more than the span. */
const ID_POOL_BYTES = 4096;
let idPool = Buffer.alloc(0);
let idPoolUsed = 0;

/** `bytes` random bytes in hex, from the pool (refilled from the system's CSPRNG when spent). */
function randomHex(bytes: number): string {
  if (idPoolUsed + bytes > idPool.length) {
    idPool = randomBytes(ID_POOL_BYTES);
    idPoolUsed = 0;
  }
  const hex = idPool.toString('hex', idPoolUsed, idPoolUsed + bytes);
  idPoolUsed += bytes;
  return hex;
}

function nanos(ms: number): string {
  const whole = Math.floor(ms);
  const micros = Math.round((ms - whole) * 1000);
  return `${BigInt(whole) * 1_000_000n + BigInt(micros) * 1000n}`;
}
