import { describe, expect, it } from 'vitest';
import { isAgentvError } from '../errors/agentv-error.js';
import { ProviderError } from '../errors/provider-error.js';
import type { EvalCase } from '../eval-file/eval-case.js';
import { createEvaluatorRegistry, defaultEvaluators } from '../evaluators/evaluator-registry.js';
import { mockProviderFactory } from '../provider/mock-provider.js';
import type { Provider } from '../provider/provider.js';
import { createProviderRegistry } from '../provider/provider-registry.js';
import type { ProviderRequest } from '../provider/provider-request.js';
import type { ProviderResponse } from '../provider/provider-response.js';
import type { ResolvedTarget, TargetTraceSource } from '../provider/resolved-target.js';
import type { TraceIntake } from '../provider/trace-intake.js';
import type { EvaluationResult } from './evaluation-result.js';
import { planRun } from './plan-run.js';
import { runEvaluation } from './run-evaluation.js';

// The orchestrator's side of `trace: { source: otlp }`, with an intake that hands out
// scripted spans (the real receiver is @agentv/otel's, tested there and end to end).

const CASE: EvalCase = {
  id: 'weather',
  dataset: 'suite',
  filePath: '/evals/suite.yaml',
  inputMessages: [{ role: 'user', content: [{ type: 'text', value: 'weather?' }] }],
  expectedMessages: [],
  evaluators: [
    { name: 'tools', type: 'tool_trajectory', mode: 'exact', expected: [{ tool: 'get_weather' }] },
  ],
};

function recordingIntake() {
  const log: string[] = [];
  const graces: number[] = [];
  let calls = 0;
  const intake: TraceIntake = {
    async start() {
      log.push('start');
    },
    openCall({ evalCaseId, attempt }) {
      calls++;
      const id = `${calls}`.padStart(32, '0');
      log.push(`open ${evalCaseId} ${attempt}`);
      return {
        context: { traceparent: `00-${id}-0000000000000001-01`, env: { TRACEPARENT: id } },
        async finish(graceMs) {
          graces.push(graceMs);
          return {
            spanCount: 2,
            usage: { inputTokens: 30, outputTokens: 8, totalTokens: 38 },
            trace: [
              { type: 'tool_call', timestamp: '2026-01-01T00:00:02.000Z', name: 'get_weather' },
              { type: 'tool_result', timestamp: '2026-01-01T00:00:03.000Z', name: 'get_weather' },
            ],
          };
        },
      };
    },
    async close() {
      log.push('close');
    },
  };
  return { intake, log, graces };
}

function providerAnswering(
  answer: (request: ProviderRequest) => ProviderResponse,
): Provider & { requests: ProviderRequest[] } {
  const requests: ProviderRequest[] = [];
  return {
    specificationVersion: 'v1',
    id: 'scripted',
    kind: 'scripted',
    targetName: 'default',
    requests,
    async invoke(request) {
      requests.push({ ...request });
      return answer(request);
    },
  };
}

async function run(provider: Provider, trace: TargetTraceSource, intake?: TraceIntake) {
  const providerRegistry = createProviderRegistry([mockProviderFactory]);
  const evaluatorRegistry = createEvaluatorRegistry(defaultEvaluators());
  const target: ResolvedTarget = {
    name: 'default',
    provider: 'mock',
    settings: {},
    filePath: '/t.yaml',
    baseDir: '/',
    trace,
  };
  const { plan } = planRun({
    cases: [CASE],
    targets: [target],
    providerRegistry,
    evaluatorRegistry,
  });
  const results: EvaluationResult[] = [];
  await runEvaluation({
    plan,
    providerRegistry,
    evaluatorRegistry,
    createProvider: () => provider,
    retryPolicy: { baseDelayMs: 1, maxDelayMs: 2 },
    onResult: (result) => {
      results.push(result);
    },
    ...(intake === undefined ? {} : { traceIntake: intake }),
  });
  return results;
}

describe('targets with trace: { source: otlp }', () => {
  it('give each call its trace context and grade the spans as the trace, with their usage', async () => {
    const { intake, log, graces } = recordingIntake();
    const provider = providerAnswering(() => ({
      text: 'sunny',
      trace: [{ type: 'message', timestamp: '2026-01-01T00:00:01.000Z', text: 'thinking' }],
    }));
    const [result] = await run(provider, { source: 'otlp' }, intake);
    expect(provider.requests[0]!.traceContext?.env).toEqual({ TRACEPARENT: '1'.padStart(32, '0') });
    expect(result!.trace?.map((event) => event.type)).toEqual([
      'message',
      'tool_call',
      'tool_result',
    ]);
    expect(result!.usage).toEqual({ inputTokens: 30, outputTokens: 8, totalTokens: 38 });
    expect(result!.passed).toBe(true);
    expect(graces).toEqual([50]);
    expect(log).toEqual(['start', 'open weather 0', 'close']);
  });

  it('keep the usage the provider reported, wait grace_ms, and open a new trace per retry', async () => {
    const { intake, log, graces } = recordingIntake();
    let calls = 0;
    const provider = providerAnswering(() => {
      calls++;
      if (calls === 1) throw new ProviderError('busy', { retryable: true });
      return { text: 'sunny', usage: { inputTokens: 1 } };
    });
    const [result] = await run(provider, { source: 'otlp', graceMs: 5 }, intake);
    expect(result!.usage).toEqual({ inputTokens: 1 });
    // The failed call's spans are not waited for.
    expect(graces).toEqual([0, 5]);
    expect(log).toEqual(['start', 'open weather 0', 'open weather 1', 'close']);
    const [first, second] = provider.requests.map((request) => request.traceContext?.traceparent);
    expect(first).not.toBe(second);
  });

  it('stop the run before its first case when no receiver was given', async () => {
    const provider = providerAnswering(() => ({ text: 'sunny' }));
    const error = await run(provider, { source: 'otlp' }).catch((caught: unknown) => caught);
    expect(isAgentvError(error)).toBe(true);
    expect((error as Error).message).toContain(
      'target "default" (/t.yaml) says trace: { source: otlp }',
    );
    expect(provider.requests).toEqual([]);
  });
});
