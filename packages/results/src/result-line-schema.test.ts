import type { TraceEvent } from '@agentv/core/provider-utils';
import { describe, expect, it } from 'vitest';
import { createResultLineRenderer } from './result-line.js';
import { resultLineSchema } from './result-line-schema.js';
import { errored, makeResult, makeRubricMember } from './test-support/make-result.js';

const trace: TraceEvent[] = [
  { type: 'tool_call', timestamp: '2025-01-01T12:00:00.000Z', name: 'lookup', input: { id: 42 } },
  { type: 'tool_call', timestamp: '2025-01-01T12:00:00.500Z', name: 'shell', rawName: 'Bash' },
  {
    type: 'error',
    timestamp: '2025-01-01T12:00:01Z',
    text: 'lookup failed',
    metadata: { code: 3 },
  },
];
const member = makeRubricMember({ reasoning: 'no amount' });

// Every optional field of a line set at least once.
const results = [
  makeResult(),
  errored('broken', 'agent exited with code 1'),
  makeResult({
    passed: false,
    workspace: { filesChanged: 2, insertions: 5, deletions: 1, keptAt: '/tmp/agentv-ws/a' },
  }),
  makeResult({ workspace: { filesChanged: 0, insertions: 0, deletions: 0 } }),
  makeResult({
    conversationId: 'conv-1',
    usage: { inputTokens: 10, outputTokens: 5, cachedTokens: 2 },
    costUsd: 0.25,
    cached: true,
    judgeUsage: { inputTokens: 3 },
    judgeCostUsd: 0.01,
    evaluatorResults: [
      { ...member, name: 'combined', type: 'composite', error: 'boom', members: [member] },
      { ...member, negated: true, verdict: 'error' },
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
    outputMessages: [
      { role: 'assistant', content: [{ type: 'text', text: 'hi' }], toolCalls: [{ tool: 'x' }] },
    ],
  }),
];

describe('resultLineSchema', () => {
  it('accepts every line the writer writes, with and without traces, run and eval file', () => {
    const optionSets = [
      {},
      { includeTrace: true },
      {
        includeTrace: true,
        evalFileName: (file: string) => file.slice('/repo/'.length),
        run: { id: 'abc', cases: 3, shard: '1/2' },
        gradedFrom: 'old.jsonl',
      },
    ];
    for (const options of optionSets) {
      const render = createResultLineRenderer(options);
      for (const result of results) {
        const checked = resultLineSchema.safeParse(JSON.parse(render(result)));
        expect(checked.error?.issues ?? []).toEqual([]);
      }
    }
  });
});
