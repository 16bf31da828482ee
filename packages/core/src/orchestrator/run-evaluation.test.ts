import { describe, expect, it } from 'vitest';
import { ProviderError } from '../errors/provider-error.js';
import type { EvalCase } from '../eval-file/eval-case.js';
import type { EvaluationContext, Evaluator } from '../evaluators/evaluator.js';
import { createEvaluatorRegistry, defaultEvaluators } from '../evaluators/evaluator-registry.js';
import { createMockProvider, mockProviderFactory } from '../provider/mock-provider.js';
import type { Provider } from '../provider/provider.js';
import { createProviderRegistry } from '../provider/provider-registry.js';
import type { ProviderRequest } from '../provider/provider-request.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import type { AttemptRecord, EvaluationResult } from './evaluation-result.js';
import { planRun } from './plan-run.js';
import { runEvaluation } from './run-evaluation.js';

function evalCase(id: string, overrides: Partial<EvalCase> = {}): EvalCase {
  return {
    id,
    dataset: 'suite',
    filePath: '/evals/suite.yaml',
    inputMessages: [{ role: 'user', content: [{ type: 'text', value: `question ${id}` }] }],
    expectedMessages: [],
    evaluators: [{ name: 'says-ok', type: 'contains', value: 'ok' }],
    ...overrides,
  };
}

function target(name: string, overrides: Partial<ResolvedTarget> = {}): ResolvedTarget {
  return { name, provider: 'mock', settings: {}, filePath: '/t.yaml', baseDir: '/', ...overrides };
}

/** A provider whose answers are computed by `answer`, with its calls recorded. */
function scriptedProvider(
  answer: (request: ProviderRequest) => Promise<string> | string,
): Provider & {
  requests: ProviderRequest[];
} {
  const requests: ProviderRequest[] = [];
  return {
    specificationVersion: 'v1',
    id: 'scripted',
    kind: 'scripted',
    targetName: 'default',
    requests,
    async invoke(request) {
      requests.push(request);
      return { text: await answer(request) };
    },
  };
}

async function run(
  cases: EvalCase[],
  provider: Provider,
  extra: Partial<Parameters<typeof runEvaluation>[0]> = {},
  extraEvaluators: Evaluator[] = [],
) {
  const providerRegistry = createProviderRegistry([mockProviderFactory]);
  const evaluatorRegistry = createEvaluatorRegistry([...defaultEvaluators(), ...extraEvaluators]);
  const { plan, issues } = planRun({
    cases,
    targets: [target('default'), target('other')],
    providerRegistry,
    evaluatorRegistry,
  });
  expect(issues).toEqual([]);
  const streamed: EvaluationResult[] = [];
  const outcome = await runEvaluation({
    plan,
    providerRegistry,
    evaluatorRegistry,
    createProvider: () => provider,
    retryPolicy: { baseDelayMs: 1, maxDelayMs: 2 },
    onResult: (result) => {
      streamed.push(result);
    },
    ...extra,
  });
  return { ...outcome, streamed };
}

describe('runEvaluation', () => {
  it('grades every case and reports each result as it finishes', async () => {
    const provider = scriptedProvider((request) => (request.evalCaseId === 'b' ? 'no' : 'ok'));
    const { results, streamed } = await run(
      [evalCase('a'), evalCase('b'), evalCase('c')],
      provider,
    );
    expect(streamed).toEqual(results);
    const byId = Object.fromEntries(results.map((result) => [result.evalId, result]));
    expect(byId.a).toMatchObject({
      passed: true,
      score: 1,
      candidateAnswer: 'ok',
      attempts: 1,
      target: 'default',
    });
    expect(byId.b).toMatchObject({ passed: false, score: 0, candidateAnswer: 'no' });
    expect(byId.b?.error).toBeUndefined();
  });

  it("tells the provider the eval file's folder as evalDir", async () => {
    const provider = scriptedProvider(() => 'ok');
    await run([evalCase('a', { filePath: '/repo/evals/refunds.yaml' })], provider);
    expect(provider.requests[0]?.evalDir).toBe('/repo/evals');
    expect(provider.requests[0]?.metadata).toEqual({ dataset: 'suite' });
  });

  it('streams results without keeping them when retainResults is false', async () => {
    const provider = scriptedProvider(() => 'ok');
    const { results, streamed, finished } = await run([evalCase('a'), evalCase('b')], provider, {
      retainResults: false,
    });
    expect(results).toEqual([]);
    expect(finished).toBe(2);
    expect(streamed.map((result) => result.evalId).sort()).toEqual(['a', 'b']);
  });

  it('fails the run when a hook throws, but only after every other case has settled', async () => {
    let finished = 0;
    const provider = scriptedProvider(async (request) => {
      await new Promise((resolve) => setTimeout(resolve, request.evalCaseId === 'slow' ? 50 : 1));
      finished++;
      return 'ok';
    });
    const failing = run([evalCase('fast'), evalCase('slow')], provider, {
      onResult: (result) => {
        if (result.evalId === 'fast') throw new Error('ENOSPC: no space left on device');
      },
    });
    await expect(failing).rejects.toThrow('ENOSPC');
    expect(finished).toBe(2);
  });

  it('keeps running other cases when one provider call fails', async () => {
    const provider = scriptedProvider((request) => {
      if (request.evalCaseId === 'broken')
        throw new ProviderError('command exited with code 3', { retryable: false });
      return 'ok';
    });
    const { results } = await run(
      [evalCase('fine-1'), evalCase('broken'), evalCase('fine-2')],
      provider,
    );
    expect(results).toHaveLength(3);
    const broken = results.find((result) => result.evalId === 'broken');
    expect(broken).toMatchObject({
      passed: false,
      score: 0,
      attempts: 1,
      error: 'command exited with code 3',
    });
    expect(
      results
        .filter((result) => result.passed)
        .map((result) => result.evalId)
        .sort(),
    ).toEqual(['fine-1', 'fine-2']);
  });

  it('retries failed calls and records how many attempts were made', async () => {
    let calls = 0;
    const provider = scriptedProvider(() => {
      calls++;
      if (calls < 3) throw new ProviderError(`timed out after 1s (call ${calls})`);
      return 'ok';
    });
    const attempts: AttemptRecord[] = [];
    const { results } = await run([evalCase('flaky')], provider, {
      onAttempt: (record) => {
        attempts.push(record);
      },
    });
    expect(results[0]).toMatchObject({ passed: true, attempts: 3 });
    expect(provider.requests.map((request) => request.attempt)).toEqual([0, 1, 2]);
    expect(attempts.map((record) => [record.attempt, record.error])).toEqual([
      [1, 'timed out after 1s (call 1)'],
      [2, 'timed out after 1s (call 2)'],
      [3, undefined],
    ]);
  });

  it('waits the Retry-After a provider error asks for before retrying', async () => {
    const calledAt: number[] = [];
    const provider = scriptedProvider(() => {
      calledAt.push(performance.now());
      if (calledAt.length === 1) throw new ProviderError('429', { retryAfterMs: 40 });
      return 'ok';
    });
    const { results } = await run([evalCase('limited')], provider);
    expect(results[0]).toMatchObject({ passed: true, attempts: 2 });
    // The backoff of this run is 1-2 ms; only the asked-for wait explains the gap.
    expect(calledAt[1]! - calledAt[0]!).toBeGreaterThanOrEqual(39);
  });

  it("a case that passed after retries lasted its failed attempts and waits too, plus the agent's own time", async () => {
    let calls = 0;
    const provider: Provider = {
      ...scriptedProvider(() => 'ok'),
      async invoke() {
        calls++;
        if (calls === 1) throw new ProviderError('429', { retryAfterMs: 200 });
        // The agent reports its own time for the call that answered.
        return { text: 'ok', durationMs: 5 };
      },
    };
    const { results } = await run([evalCase('limited')], provider);
    expect(results[0]).toMatchObject({ passed: true, attempts: 2 });
    // Not just the last call's 5 ms: the 429 and the 200 ms it asked to wait count.
    expect(results[0]!.durationMs).toBeGreaterThanOrEqual(205);
  });

  it('gives up after max retries with the last error', async () => {
    let calls = 0;
    const provider = scriptedProvider(() => {
      calls++;
      throw new ProviderError(`command exited with code ${calls}`);
    });
    const { results } = await run([evalCase('down')], provider, { maxRetries: 1 });
    expect(results[0]).toMatchObject({
      attempts: 2,
      error: 'command exited with code 2',
      passed: false,
    });
  });

  it('runs at most `workers` cases at once', async () => {
    let active = 0;
    let peak = 0;
    const provider = scriptedProvider(async () => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((resolve) => setTimeout(resolve, 10));
      active--;
      return 'ok';
    });
    const cases = Array.from({ length: 12 }, (_, index) => evalCase(`case-${index}`));
    const { results } = await run(cases, provider, { workers: 3 });
    expect(results).toHaveLength(12);
    expect(peak).toBe(3);
  });

  it('starts the next case while the previous result is still being reported', async () => {
    // With one worker, reporting case-0 (a slow result writer) waits until case-1 has
    // been sent to the provider: that only finishes when reporting does not hold the worker.
    let secondStarted: () => void = () => {};
    const second = new Promise<void>((resolve) => {
      secondStarted = resolve;
    });
    const provider = scriptedProvider((request) => {
      if (request.evalCaseId === 'case-1') secondStarted();
      return 'ok';
    });
    const reported: string[] = [];
    const { results } = await run([evalCase('case-0'), evalCase('case-1')], provider, {
      workers: 1,
      onResult: async (result) => {
        if (result.evalId === 'case-0') await second;
        reported.push(result.evalId);
      },
    });
    expect(results.map((result) => result.evalId).sort()).toEqual(['case-0', 'case-1']);
    expect(reported.sort()).toEqual(['case-0', 'case-1']);
  });

  it('turns an evaluator that cannot run into an error, not a silent zero', async () => {
    const crashing: Evaluator = {
      type: 'crashes',
      evaluate: () => Promise.reject(new Error('judge script not found')),
    };
    const { results } = await run(
      [evalCase('graded', { evaluators: [{ name: 'judge', type: 'crashes' }] })],
      createMockProvider('default', { response: 'ok' }),
      {},
      [crashing],
    );
    expect(results[0]?.passed).toBe(false);
    expect(results[0]?.error).toContain('judge script not found');
  });

  it('derives a trace from output messages so trace graders see tool calls', async () => {
    let seen: EvaluationContext | undefined;
    const spy: Evaluator = {
      type: 'spy',
      async evaluate(_config, context) {
        seen = context;
        return { score: 1, hits: [], misses: [] };
      },
    };
    const provider: Provider = {
      specificationVersion: 'v1',
      id: 'p',
      kind: 'p',
      targetName: 'default',
      invoke: async () => ({
        text: 'done',
        outputMessages: [
          { role: 'assistant', toolCalls: [{ tool: 'search', input: { q: 'x' }, output: 'hit' }] },
        ],
      }),
    };
    const { results } = await run(
      [evalCase('traced', { evaluators: [{ name: 'spy', type: 'spy' }] })],
      provider,
      {},
      [spy],
    );
    expect(seen?.trace?.map((event) => [event.type, event.name])).toEqual([
      ['tool_call', 'search'],
      ['tool_result', 'search'],
    ]);
    // Summarised by the orchestrator itself, once, for the evaluators and the result alike.
    expect(results[0]?.traceSummary).toEqual({
      eventCount: 2,
      toolNames: ['search'],
      toolCallsByName: { search: 1 },
      errorCount: 0,
    });
    expect(seen?.traceSummary).toBe(results[0]?.traceSummary);
  });

  it('aborts the run before any case when a health check fails', async () => {
    const provider = scriptedProvider(() => 'ok');
    provider.healthcheck = () =>
      Promise.reject(new Error('GET http://127.0.0.1:9/health: connection refused'));
    await expect(run([evalCase('a')], provider)).rejects.toThrow(
      'health check of target "default" failed: GET http://127.0.0.1:9/health: connection refused',
    );
    expect(provider.requests).toHaveLength(0);
  });

  it('closes the provider once when the run ends, after its last case', async () => {
    const events: string[] = [];
    const provider = scriptedProvider((request) => {
      events.push(`invoke ${request.evalCaseId}`);
      return 'ok';
    });
    provider.close = async () => {
      events.push('close');
    };
    await run([evalCase('a'), evalCase('b')], provider, { workers: 1 });
    expect(events).toEqual(['invoke a', 'invoke b', 'close']);
  });

  it('closes the provider when the run is interrupted, a hook throws or a health check fails', async () => {
    const controller = new AbortController();
    let closed = 0;
    const withClose = (provider: Provider) => {
      provider.close = async () => {
        closed++;
      };
      return provider;
    };
    await run(
      [evalCase('a'), evalCase('b')],
      withClose(
        scriptedProvider(() => {
          controller.abort();
          return 'ok';
        }),
      ),
      { workers: 1, signal: controller.signal },
    );
    expect(closed).toBe(1);
    const failing = run([evalCase('a')], withClose(scriptedProvider(() => 'ok')), {
      onResult: () => {
        throw new Error('ENOSPC: no space left on device');
      },
    });
    await expect(failing).rejects.toThrow('ENOSPC');
    expect(closed).toBe(2);
    const unhealthy = withClose(scriptedProvider(() => 'ok'));
    unhealthy.healthcheck = () => Promise.reject(new Error('connection refused'));
    await expect(run([evalCase('a')], unhealthy)).rejects.toThrow('connection refused');
    expect(closed).toBe(3);
  });

  it('stops scheduling cases when interrupted and keeps the finished ones', async () => {
    const controller = new AbortController();
    const provider = scriptedProvider(async (request) => {
      if (request.evalCaseId === 'case-1') controller.abort();
      return 'ok';
    });
    const cases = Array.from({ length: 6 }, (_, index) => evalCase(`case-${index}`));
    const { results, interrupted } = await run(cases, provider, {
      workers: 1,
      signal: controller.signal,
    });
    expect(interrupted).toBe(true);
    expect(results.map((result) => result.evalId)).toEqual(['case-0', 'case-1']);
  });
});

describe('a case stopped by its budget', () => {
  it('keeps the usage, cost and trace its provider reached when onUsage crossed max_tokens', async () => {
    let steps = 0;
    const provider: Provider = {
      specificationVersion: 'v1',
      id: 'stepper',
      kind: 'stepper',
      targetName: 'default',
      async invoke(request) {
        const trace = [];
        // One model step of 100 tokens at a time, as an agent loop reports its running totals.
        while (!request.signal?.aborted && steps < 10) {
          steps += 1;
          trace.push({
            type: 'tool_call' as const,
            timestamp: new Date().toISOString(),
            name: 'shell',
          });
          request.onUsage?.({ inputTokens: steps * 90, outputTokens: steps * 10 }, steps * 0.01);
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        throw new ProviderError('the stepper was stopped', { retryable: false, trace });
      },
    };
    const { results } = await run([evalCase('long', { budget: { maxTokens: 250 } })], provider);
    expect(steps).toBe(3);
    const [result] = results;
    expect(result).toMatchObject({
      passed: false,
      failureClass: 'budget',
      usage: { inputTokens: 270, outputTokens: 30 },
      costUsd: 0.03,
    });
    expect(result?.error).toBeUndefined();
    expect(result?.misses[0]).toBe(
      'over budget: 300 tokens > max_tokens 250 (the agent was stopped)',
    );
    expect(result?.trace).toHaveLength(3);
    expect(result?.traceSummary).not.toBeNull();
  });
});

describe('planRun', () => {
  // Targets that cannot judge their own answers, like `cli` ones (plan-judge.test.ts covers those that can).
  const providerRegistry = createProviderRegistry([{ ...mockProviderFactory, canJudge: false }]);
  const evaluatorRegistry = createEvaluatorRegistry(defaultEvaluators());
  const targets = [
    target('default'),
    target('file-target'),
    target('case-target'),
    target('flag-target'),
  ];

  it('chooses the flag, else the case/file target, else "default"', () => {
    const cases = [evalCase('plain'), evalCase('chosen', { target: 'case-target' })];
    const withoutFlag = planRun({ cases, targets, providerRegistry, evaluatorRegistry });
    expect(withoutFlag.plan.cases.map((planned) => planned.target.name)).toEqual([
      'default',
      'case-target',
    ]);
    const withFlag = planRun({
      cases,
      targets,
      providerRegistry,
      evaluatorRegistry,
      targetOverride: 'flag-target',
    });
    expect(withFlag.plan.cases.map((planned) => planned.target.name)).toEqual([
      'flag-target',
      'flag-target',
    ]);
    expect(withFlag.plan.targets.map((used) => used.name)).toEqual(['flag-target']);
  });

  it('reports an unknown target with the case, its line and the defined targets', () => {
    const { issues } = planRun({
      cases: [evalCase('lost', { target: 'nope', line: 12 })],
      targets,
      targetsFile: '.agentv/targets.yaml',
      providerRegistry,
      evaluatorRegistry,
    });
    expect(issues).toEqual([
      expect.objectContaining({
        severity: 'error',
        file: '/evals/suite.yaml',
        line: 12,
        caseId: 'lost',
        message: 'unknown target "nope"',
        hint: expect.stringContaining('default, file-target, case-target, flag-target'),
      }),
    ]);
  });

  it('reports unset variables, unknown providers and bad evaluators before running', () => {
    const { issues } = planRun({
      cases: [
        evalCase('a', { target: 'needs-key' }),
        evalCase('b', { target: 'odd' }),
        evalCase('c', { evaluators: [{ name: 'x', type: 'nonsense' }] }),
        evalCase('d', { evaluators: [] }),
        evalCase('e', { evaluators: [{ name: 'c', type: 'contains' }] }),
      ],
      targets: [
        target('default'),
        target('needs-key', { missingVariables: ['API_KEY'] }),
        target('odd', { provider: 'warp-drive' }),
      ],
      providerRegistry,
      evaluatorRegistry,
    });
    const messages = issues.map((issue) => `${issue.target ?? issue.caseId}: ${issue.message}`);
    expect(messages).toEqual([
      'needs-key: uses environment variable(s) API_KEY, which are not set',
      'odd: unknown provider "warp-drive"',
      'c: evaluator "x" has unknown type "nonsense"',
      'd: has no evaluators',
      expect.stringMatching(/^e: evaluator "c": .*value/),
    ]);
  });

  it('reports a problem shared by several cases once, naming every case', () => {
    const { issues } = planRun({
      cases: ['a', 'b', 'c'].map((id) => evalCase(id, { evaluators: [] })),
      targets,
      providerRegistry,
      evaluatorRegistry,
    });
    expect(issues.map((issue) => [issue.caseId, issue.message])).toEqual([
      ['a', 'has no evaluators (also in cases "b", "c")'],
    ]);
  });

  it("reports a problem of the file's execution.evaluators once, as the file's", () => {
    const evaluators = [{ name: 'c', type: 'contians' }];
    const evaluatorPositions = { c: { line: 5, column: 13, shared: true as const } };
    const { issues } = planRun({
      cases: ['a', 'b'].map((id) => evalCase(id, { evaluators, evaluatorPositions })),
      targets,
      providerRegistry,
      evaluatorRegistry,
    });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({
      line: 5,
      column: 13,
      message: 'execution.evaluators: evaluator "c" has unknown type "contians"',
    });
    expect(issues[0]).not.toHaveProperty('caseId');
  });

  it('needs no targets at all in a dry run', () => {
    const { plan, issues } = planRun({
      cases: [evalCase('a', { target: 'anything' })],
      targets: [],
      providerRegistry,
      evaluatorRegistry,
      dryRun: true,
    });
    expect(issues).toEqual([]);
    expect(plan.cases[0]?.target).toMatchObject({ name: 'anything', provider: 'mock' });
  });
});
