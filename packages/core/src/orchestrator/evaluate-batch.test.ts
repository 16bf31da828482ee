import { describe, expect, it } from 'vitest';
import { ProviderError } from '../errors/provider-error.js';
import type { EvalCase } from '../eval-file/eval-case.js';
import { createEvaluatorRegistry, defaultEvaluators } from '../evaluators/evaluator-registry.js';
import { mockProviderFactory } from '../provider/mock-provider.js';
import type { Provider } from '../provider/provider.js';
import { createProviderRegistry } from '../provider/provider-registry.js';
import type { ProviderRequest } from '../provider/provider-request.js';
import type { ProviderResponse } from '../provider/provider-response.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import type { AttemptRecord } from './evaluation-result.js';
import { planRun } from './plan-run.js';
import { runEvaluation } from './run-evaluation.js';

const providerRegistry = createProviderRegistry([mockProviderFactory]);
const evaluatorRegistry = createEvaluatorRegistry(defaultEvaluators());
function cases(count: number, evaluators?: EvalCase['evaluators']): EvalCase[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `case-${index}`,
    dataset: 'batch',
    filePath: '/evals/batch.yaml',
    inputMessages: [
      { role: 'user' as const, content: [{ type: 'text' as const, value: `q${index}` }] },
    ],
    expectedMessages: [],
    evaluators: evaluators ?? [{ name: 'echo', type: 'contains', value: `answer q${index}` }],
  }));
}

function batchTarget(overrides: Partial<ResolvedTarget> = {}): ResolvedTarget {
  return {
    name: 'default',
    provider: 'mock',
    settings: {},
    providerBatching: true,
    filePath: '/t.yaml',
    baseDir: '/',
    ...overrides,
  };
}

/** A batch provider recording every call; `answer` maps the requests of one call to responses. */
function batchProvider(answer: (requests: ProviderRequest[], call: number) => ProviderResponse[]) {
  const batches: ProviderRequest[][] = [];
  const singles: ProviderRequest[] = [];
  const provider: Provider = {
    specificationVersion: 'v1',
    id: 'batcher',
    kind: 'batcher',
    targetName: 'default',
    supportsBatch: true,
    invoke: async (request) => {
      singles.push(request);
      return { text: `answer ${request.question}` };
    },
    invokeBatch: async (requests) => {
      batches.push(requests);
      return answer(requests, batches.length);
    },
  };
  return { provider, batches, singles };
}

const echo = (requests: ProviderRequest[]) =>
  requests.map((request) => ({ text: `answer ${request.question}` }));

async function run(
  evalCases: EvalCase[],
  target: ResolvedTarget,
  provider: Provider,
  extra: Partial<Parameters<typeof runEvaluation>[0]> = {},
) {
  const { plan, issues } = planRun({
    cases: evalCases,
    targets: [target],
    providerRegistry,
    evaluatorRegistry,
  });
  expect(issues).toEqual([]);
  return runEvaluation({
    plan,
    providerRegistry,
    evaluatorRegistry,
    createProvider: () => provider,
    retryPolicy: { baseDelayMs: 1, maxDelayMs: 2 },
    ...extra,
  });
}

describe('runEvaluation with provider_batching', () => {
  it('sends every case to one invokeBatch call and grades each answer', async () => {
    const { provider, batches, singles } = batchProvider(echo);
    const { results } = await run(cases(25), batchTarget(), provider);
    expect(batches).toHaveLength(1);
    expect(batches[0]!.map((request) => request.evalCaseId)).toEqual(
      Array.from({ length: 25 }, (_, index) => `case-${index}`),
    );
    expect(singles).toHaveLength(0);
    expect(results).toHaveLength(25);
    expect(results.every((result) => result.passed && result.attempts === 1)).toBe(true);
  });

  it('reports the results of a large batch in the order of its cases', async () => {
    const { provider } = batchProvider(echo);
    const reported: string[] = [];
    // Past the cases graded between two turns of the event loop, with a hook that waits.
    await run(cases(1200), batchTarget(), provider, {
      onResult: async (result) => {
        reported.push(result.evalId);
        await new Promise(setImmediate);
      },
    });
    expect(reported).toEqual(Array.from({ length: 1200 }, (_, index) => `case-${index}`));
  });

  it('splits the cases into batches of batch_size', async () => {
    const { provider, batches } = batchProvider(echo);
    const { results } = await run(cases(10), batchTarget({ batchSize: 4 }), provider);
    expect(batches.map((batch) => batch.length).sort()).toEqual([2, 4, 4]);
    expect(new Set(batches.flat().map((request) => request.evalCaseId)).size).toBe(10);
    expect(results).toHaveLength(10);
  });

  it('warns and runs cases one by one when the provider cannot batch', async () => {
    const { provider, batches, singles } = batchProvider(echo);
    const warnings: string[] = [];
    const { results } = await run(
      cases(3),
      batchTarget(),
      { ...provider, supportsBatch: false },
      {
        onWarning: (message) => warnings.push(message),
      },
    );
    expect(batches).toHaveLength(0);
    expect(singles).toHaveLength(3);
    expect(results.every((result) => result.passed)).toBe(true);
    expect(warnings).toEqual([expect.stringContaining('target "default" sets provider_batching')]);
  });

  it('retries a failed batch and records every attempt of every case', async () => {
    const { provider, batches } = batchProvider((requests, call) => {
      if (call < 3) throw new ProviderError(`line 7 is not valid JSON (call ${call})`);
      return echo(requests);
    });
    const attempts: AttemptRecord[] = [];
    const { results } = await run(cases(2), batchTarget(), provider, {
      onAttempt: (record) => {
        attempts.push(record);
      },
    });
    expect(batches.map((batch) => batch.map((request) => request.attempt))).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
    ]);
    expect(results.map((result) => [result.passed, result.attempts])).toEqual([
      [true, 3],
      [true, 3],
    ]);
    expect(
      attempts.filter((record) => record.evalId === 'case-0').map((record) => record.error),
    ).toEqual([
      'line 7 is not valid JSON (call 1)',
      'line 7 is not valid JSON (call 2)',
      undefined,
    ]);
  });

  it('waits the Retry-After a failed batch asks for before retrying it', async () => {
    const calledAt: number[] = [];
    const { provider } = batchProvider((requests) => {
      calledAt.push(performance.now());
      if (calledAt.length === 1) throw new ProviderError('429', { retryAfterMs: 40 });
      return echo(requests);
    });
    const { results } = await run(cases(3), batchTarget(), provider);
    expect(results.map((result) => [result.passed, result.attempts])).toEqual([
      [true, 2],
      [true, 2],
      [true, 2],
    ]);
    // The backoff of this run is 1-2 ms; only the asked-for wait explains the gap.
    expect(calledAt[1]! - calledAt[0]!).toBeGreaterThanOrEqual(39);
  });

  it('gives every case of a batch that keeps failing an error carrying the batch error', async () => {
    const { provider, batches } = batchProvider(() => {
      throw new ProviderError('output is missing ids: case-1, case-2');
    });
    const { results } = await run(cases(3), batchTarget({ maxRetries: 1 }), provider);
    expect(batches).toHaveLength(2);
    expect(results).toHaveLength(3);
    for (const result of results) {
      expect(result).toMatchObject({
        passed: false,
        attempts: 2,
        error: 'batch of 3 cases failed: output is missing ids: case-1, case-2',
      });
    }
  });

  it('prints a very long batch error once and gives each case a cut copy', async () => {
    const ids = Array.from({ length: 300 }, (_, index) => `case-${index}`).join(', ');
    const { provider } = batchProvider(() => {
      throw new ProviderError(`batch output: no line for 300 of 300 requested case(s): ${ids}`, {
        retryable: false,
      });
    });
    const warnings: string[] = [];
    const { results } = await run(cases(300), batchTarget(), provider, {
      onWarning: (message) => warnings.push(message),
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('case-299');
    for (const result of results) {
      expect(result.error!.length).toBeLessThan(1200);
      expect(result.error).toContain('the whole batch error was printed once as a warning');
    }
  });

  it('grades batch traces and output messages like single answers', async () => {
    const now = new Date().toISOString();
    const { provider } = batchProvider((requests) =>
      requests.map((_request, index) =>
        index === 0
          ? { text: 'a', trace: [{ type: 'tool_call', timestamp: now, name: 'search' }] }
          : { text: 'b', outputMessages: [{ role: 'assistant', toolCalls: [{ tool: 'search' }] }] },
      ),
    );
    const { results } = await run(
      cases(2, [
        {
          name: 'uses-search',
          type: 'tool_trajectory',
          mode: 'any_order',
          minimums: { search: 1 },
        },
      ]),
      batchTarget(),
      provider,
    );
    expect(
      results.map((result) => [result.evalId, result.passed, result.traceSummary?.eventCount]),
    ).toEqual([
      ['case-0', true, 1],
      ['case-1', true, 1],
    ]);
  });
});
