import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createEvaluatorRegistry,
  createProviderRegistry,
  defaultEvaluators,
  type EvaluationResult,
  loadProject,
  planRun,
} from '@agentv/core';
import { runTargetsOf } from '@agentv/core/internal';
import type { ProviderFactory } from '@agentv/core/provider-utils';
import { mockProviderFactory } from '@agentv/core/test';
import { describe, expect, it } from 'vitest';
import { reduceRepeats } from './reduce-repeats.js';
import { runEvaluationRepeated } from './repeat.js';

const result = (score: number, passed: boolean, error?: string): EvaluationResult => ({
  timestamp: '2026-01-01T00:00:00.000Z',
  evalId: 'case-1',
  dataset: 'ds',
  evalFile: '/p/evals/a.yaml',
  target: 'default',
  score,
  passed,
  hits: [],
  misses: [],
  reasoning: '',
  candidateAnswer: `answer ${score}`,
  evaluatorResults: [],
  attempts: 1,
  durationMs: 10,
  traceSummary: null,
  ...(error === undefined ? {} : { error }),
});

describe('reduceRepeats', () => {
  const all = { rule: { kind: 'all' as const }, reducer: 'mean' as const, planned: 3 };

  it('decides the verdict from the repeats, never from the mean score against 0.5', () => {
    // Each repeat failed its case threshold (0.8) twice; the mean (0.8) would have passed at 0.5.
    const repeats = [result(0.7, false), result(0.7, false), result(1, true)];
    const strict = reduceRepeats(repeats, all);
    expect(strict.passed).toBe(false);
    expect(strict.score).toBeCloseTo(0.8);
    expect(strict.repeats).toMatchObject({ rule: 'all', passRate: 1 / 3, passAtK: 1, passHatK: 0 });
    expect(reduceRepeats(repeats, { ...all, rule: { kind: 'any' } }).passed).toBe(true);
    expect(reduceRepeats(repeats, { ...all, rule: { kind: 'majority' } }).passed).toBe(false);
  });

  it('median of an even number of repeats is the mean of the middle two; sums are summed', () => {
    const agg = reduceRepeats(
      [result(0.2, false), result(1, true), result(0.6, true), result(0.4, false)],
      { ...all, reducer: 'median', planned: 4 },
    );
    expect(agg.score).toBeCloseTo(0.5);
    expect(agg.repeats?.flaky).toBe(true);
    expect(agg.attempts).toBe(4);
    expect(agg.durationMs).toBe(40);
  });

  it('sums usage and cost over the repeats; cached repeats are marked', () => {
    const spent = (cached: boolean): EvaluationResult => ({
      ...result(1, true),
      usage: { inputTokens: cached ? 0 : 10, outputTokens: cached ? 0 : 5 },
      costUsd: cached ? 0 : 0.5,
      judgeCostUsd: 0.1,
      ...(cached ? { cached: true } : {}),
    });
    const agg = reduceRepeats([spent(false), spent(true), spent(false)], all);
    expect(agg.usage).toEqual({ inputTokens: 20, outputTokens: 10 });
    expect(agg.costUsd).toBeCloseTo(1);
    expect(agg.judgeCostUsd).toBeCloseTo(0.3);
    expect(agg.cached).toBeUndefined();
    expect(agg.repeats?.runs.map((run) => run.cached === true)).toEqual([false, true, false]);
  });

  it('an errored repeat counts as a failed 0; the aggregate errors only when all did', () => {
    const any = { ...all, rule: { kind: 'any' as const }, planned: 2 };
    const some = reduceRepeats([result(1, true), result(0, false, 'agent crashed')], any);
    expect(some.passed).toBe(true);
    expect(some.error).toBeUndefined();
    expect(some.repeats?.runs[1]).toMatchObject({ repeat: 2, score: 0, error: 'agent crashed' });
    const errored = reduceRepeats([result(0, false, 'x'), result(0, false, 'y')], any);
    expect(errored.error).toBe('y');
    expect(errored.passed).toBe(false);
    expect(errored.repeats?.flaky).toBe(false);
  });

  it('counts an early-stopped case against the repeats asked for', () => {
    const agg = reduceRepeats([result(0, false)], { ...all, planned: 5 });
    expect(agg.passed).toBe(false);
    expect(agg.repeats).toMatchObject({ planned: 5, earlyStopped: true, passHatK: 0 });
  });
});

describe('runEvaluationRepeated', () => {
  /** The mock provider, counting per target how often one is created, health-checked, asked and closed. */
  function countingFactory() {
    const counts: Record<string, Record<string, number>> = {};
    const count = (target: string, what: string) => {
      counts[what] ??= {};
      counts[what][target] = (counts[what][target] ?? 0) + 1;
    };
    const factory: ProviderFactory = {
      ...mockProviderFactory,
      kind: 'counted',
      create(target, context) {
        count(target.name, 'created');
        const provider = mockProviderFactory.create(target, context);
        return {
          ...provider,
          kind: 'counted',
          invoke: (request) => {
            count(target.name, 'asked');
            return provider.invoke(request);
          },
          healthcheck: async () => count(target.name, 'checked'),
          close: async () => count(target.name, 'closed'),
        };
      },
    };
    return { factory, counts };
  }

  it.each([
    ['a judge target of its own', 'judge', { agent: 1, judge: 1 }],
    // As in a run without --repeat, the judge role gets a provider besides the target's.
    ['the run target as its own judge', 'agent', { agent: 2 }],
  ])(
    'shares every provider across the repeats, %s included, and closes each once',
    async (_, judge, providers) => {
      const dir = await mkdtemp(path.join(tmpdir(), 'agentv-repeat-'));
      try {
        await writeFile(
          path.join(dir, 'suite.yaml'),
          `evalcases:
  - id: graded
    input_messages: [{ role: user, content: "Grade me" }]
    evaluators: [{ name: quality, type: llm_judge }]
`,
        );
        const { factory, counts } = countingFactory();
        const verdict = JSON.stringify({ score: 1, hits: ['fine'], misses: [], reasoning: 'ok' });
        await writeFile(
          path.join(dir, 'targets.yaml'),
          JSON.stringify({
            targets: [
              { name: 'agent', provider: 'counted', response: verdict, judge_target: judge },
              { name: 'judge', provider: 'counted', response: verdict },
            ],
          }),
        );
        // The steps agentv eval composes: load the project, plan the run, run it repeated.
        const providerRegistry = createProviderRegistry([factory]);
        const evaluatorRegistry = createEvaluatorRegistry(defaultEvaluators());
        const project = await loadProject({
          cwd: dir,
          providerRegistry,
          evalFiles: [path.join(dir, 'suite.yaml')],
          targetsFile: 'targets.yaml',
          mode: 'run',
        });
        const { plan, issues } = planRun({
          cases: project.cases,
          ...runTargetsOf(project, dir),
          targetOverride: 'agent',
          providerRegistry,
          evaluatorRegistry,
        });
        expect([...project.issues, ...issues]).toEqual([]);
        const outcome = await runEvaluationRepeated(
          { plan, providerRegistry, evaluatorRegistry, providerContext: { env: project.env } },
          { count: 3, reducer: 'mean' },
        );
        expect(outcome.results).toHaveLength(1);
        expect(outcome.results[0]?.repeats?.runs.map((run) => run.passed)).toEqual([
          true,
          true,
          true,
        ]);
        expect(counts.created).toEqual(providers);
        // Health checks run once, before the first repeat (a judge that is also a run target has its target's).
        expect(counts.checked).toEqual(judge === 'agent' ? { agent: 1 } : { agent: 1, judge: 1 });
        expect(counts.closed).toEqual(providers);
        // Each repeat still asks the agent and the judge once.
        expect(counts.asked).toEqual(judge === 'agent' ? { agent: 6 } : { agent: 3, judge: 3 });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
