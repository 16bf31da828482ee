import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { TraceEvent } from '@agentv/core/provider-utils';
import { describe, expect, it } from 'vitest';
import { createResultLineRenderer } from './result-line.js';
import { makeResult, makeRubricMember } from './test-support/make-result.js';
import { toResultRecord } from './to-result-record.js';

const trace: TraceEvent[] = [
  { type: 'tool_call', timestamp: '2025-01-01T12:00:00.000Z', name: 'lookup', input: { id: 42 } },
];
const member = makeRubricMember({
  reasoning: 'no amount',
  details: { items: [{ id: 'amount', satisfied: false, note: undefined }] },
});

const results = [
  makeResult(),
  makeResult({
    conversationId: 'conv "1"',
    usage: { inputTokens: 10, outputTokens: 5, cachedTokens: 2 },
    costUsd: 0.25,
    cached: true,
    judgeUsage: { inputTokens: 3 },
    judgeCostUsd: 0.01,
    error: 'evaluator "x" failed: \u0000 bad\n',
    score: Number.NaN,
    passed: false,
    reasoning: 'a\tb',
    candidateAnswer: 'é \u2028 😀',
    evaluatorResults: [
      { ...member, name: 'combined', type: 'composite', error: 'boom', members: [member] },
      member,
    ],
    repeats: {
      rule: 'rate>=0.5',
      reducer: 'mean',
      planned: 3,
      flaky: true,
      passRate: 0.5,
      passAtK: 1,
      passHatK: 0,
      earlyStopped: true,
      runs: [
        { repeat: 1, score: 1, passed: true, attempts: 1, durationMs: 3, cached: true },
        { repeat: 2, score: 0, passed: false, attempts: 2, durationMs: 4, error: 'timeout' },
      ],
    },
    trace,
    outputMessages: [{ role: 'assistant', content: 'hi' }],
  }),
  makeResult({ evaluatorResults: [], traceSummary: null, evalFile: '/repo/other.yaml' }),
];

describe('createResultLineRenderer', () => {
  const optionSets = [
    {},
    { includeTrace: true },
    {
      includeTrace: true,
      evalFileName: (file: string) => file.slice('/repo/'.length),
      run: { id: 'abc', cases: 3, shard: '1/2' },
      gradedFrom: 'old.jsonl',
    },
    { evalFileName: () => undefined as unknown as string },
  ];
  it('writes every field in its place, optional ones only when set', () => {
    // The lines as AgentV wrote them before result lines were rendered without spreads.
    const expected = readFileSync(
      path.join(import.meta.dirname, '__fixtures__', 'result-lines.jsonl'),
      'utf8',
    ).split('\n');
    const lines: string[] = [];
    for (const options of optionSets) {
      const render = createResultLineRenderer(options);
      for (const result of results) lines.push(render(result));
    }
    expect(lines).toEqual(expected.slice(0, -1));
    for (const options of optionSets) {
      for (const result of results) {
        expect(JSON.stringify(toResultRecord(result, options))).toBe(
          createResultLineRenderer(options)(result),
        );
      }
    }
  });
});
