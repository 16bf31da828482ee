import type { TraceEvent } from '@agentv/core/provider-utils';
import { describe, expect, it } from 'vitest';
import { makeResult, makeRubricMember } from './test-support/make-result.js';
import { toResultRecord } from './to-result-record.js';

const trace: TraceEvent[] = [
  {
    type: 'tool_call',
    timestamp: '2025-01-01T12:00:00.000Z',
    name: 'lookupOrder',
    input: { id: 42 },
  },
];
const summary = {
  eventCount: 1,
  toolNames: ['lookupOrder'],
  toolCallsByName: { lookupOrder: 1 },
  errorCount: 0,
};

describe('toResultRecord', () => {
  it('keeps rubric item outcomes and composite members, nested, in snake_case', () => {
    const member = makeRubricMember();
    const record = toResultRecord(
      makeResult({
        evaluatorResults: [
          {
            ...member,
            name: 'combined',
            type: 'composite',
            failsCase: true,
            details: undefined,
            cached: undefined,
            members: [member],
          },
        ],
      }),
    );
    expect(record.evaluator_results).toEqual([
      {
        name: 'combined',
        type: 'composite',
        score: 0,
        weight: 1,
        verdict: 'fail',
        hits: [],
        misses: ['[amount] Says $20'],
        reasoning: '',
        fails_case: true,
        members: [
          {
            name: 'rubrics',
            type: 'rubric',
            score: 0,
            weight: 1,
            verdict: 'fail',
            hits: [],
            misses: ['[amount] Says $20'],
            reasoning: '',
            fails_case: true,
            details: { items: [{ id: 'amount', satisfied: false }] },
            cached: true,
          },
        ],
      },
    ]);
  });

  it('writes every field in snake_case, in the documented order', () => {
    const record = toResultRecord(
      makeResult({
        conversationId: 'conv-7',
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15, cachedTokens: undefined },
        costUsd: 0.0012,
        traceSummary: summary,
        trace,
      }),
    );
    expect(Object.keys(record)).toEqual([
      'timestamp',
      'eval_id',
      'dataset',
      'target',
      'conversation_id',
      'score',
      'passed',
      'hits',
      'misses',
      'reasoning',
      'candidate_answer',
      'evaluator_results',
      'attempts',
      'duration_ms',
      'usage',
      'cost_usd',
      'trace_summary',
    ]);
    expect(record).toMatchObject({
      eval_id: 'case-1',
      conversation_id: 'conv-7',
      candidate_answer: 'It is 42.',
      duration_ms: 120,
      usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
      cost_usd: 0.0012,
      trace_summary: summary,
    });
    expect(record.evaluator_results).toEqual([
      {
        name: 'mentions-42',
        type: 'contains',
        score: 1,
        weight: 1,
        verdict: 'pass',
        hits: ['Answer contains "42"'],
        misses: [],
        reasoning: '',
      },
    ]);
  });

  it('marks an answer from the provider cache with cached: true, and only then', () => {
    const hit = toResultRecord(makeResult({ costUsd: 0.5, cached: true }));
    expect(Object.keys(hit).slice(-3)).toEqual(['cost_usd', 'cached', 'trace_summary']);
    expect(hit.cached).toBe(true);
    expect(toResultRecord(makeResult({ cached: false }))).not.toHaveProperty('cached');
    expect(toResultRecord(makeResult())).not.toHaveProperty('cached');
  });

  it('leaves out the full trace by default and sets trace_summary null without a trace', () => {
    const record = toResultRecord(makeResult({ trace, traceSummary: summary }));
    expect(record).not.toHaveProperty('trace');
    expect(record).not.toHaveProperty('output_messages');
    expect(toResultRecord(makeResult()).trace_summary).toBeNull();
  });

  it("writes the result's trace summary as the orchestrator computed it, never recomputing it", () => {
    expect(toResultRecord(makeResult({ trace, traceSummary: null })).trace_summary).toBeNull();
  });

  it('adds trace and output messages (snake_case tool_calls) with includeTrace', () => {
    const record = toResultRecord(
      makeResult({
        trace,
        traceSummary: summary,
        outputMessages: [
          { role: 'assistant', toolCalls: [{ tool: 'lookupOrder', input: { id: 42 }, id: 'c1' }] },
          { role: 'assistant', content: 'Refunded.' },
        ],
      }),
      { includeTrace: true },
    );
    expect(Object.keys(record).slice(-3)).toEqual(['trace_summary', 'trace', 'output_messages']);
    expect(record.trace).toEqual(trace);
    expect(record.output_messages).toEqual([
      { role: 'assistant', tool_calls: [{ tool: 'lookupOrder', input: { id: 42 }, id: 'c1' }] },
      { role: 'assistant', content: 'Refunded.' },
    ]);
  });

  it('writes null trace and output messages with includeTrace when there are none', () => {
    const record = toResultRecord(makeResult(), { includeTrace: true });
    expect(record.trace).toBeNull();
    expect(record.output_messages).toBeNull();
    expect(record.trace_summary).toBeNull();
  });

  it('names the re-graded result file in graded_from, after eval_file and run, only when given', () => {
    const record = toResultRecord(makeResult(), {
      evalFileName: () => 'evals/a.yaml',
      run: { id: 'abc', cases: 1 },
      gradedFrom: 'run.jsonl',
    });
    expect(Object.keys(record).slice(-3)).toEqual(['eval_file', 'run', 'graded_from']);
    expect(record.graded_from).toBe('run.jsonl');
    expect(toResultRecord(makeResult())).not.toHaveProperty('graded_from');
  });

  it('keeps errors on the case and its evaluators', () => {
    const record = toResultRecord(
      makeResult({
        passed: false,
        score: 0,
        error: 'evaluator "judge" (code_judge) failed: boom',
        evaluatorResults: [
          {
            name: 'judge',
            type: 'code_judge',
            score: 0,
            weight: 1,
            verdict: 'error',
            hits: [],
            misses: [],
            error: 'boom',
          },
        ],
      }),
    );
    expect(record.error).toBe('evaluator "judge" (code_judge) failed: boom');
    expect(record.evaluator_results[0]).toMatchObject({
      verdict: 'error',
      error: 'boom',
      reasoning: '',
    });
    expect(Object.keys(record).indexOf('error')).toBe(
      Object.keys(record).indexOf('trace_summary') - 1,
    );
  });
});
