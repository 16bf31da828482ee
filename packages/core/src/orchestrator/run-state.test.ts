import { describe, expect, it } from 'vitest';
import type { EvalCase } from '../eval-file/eval-case.js';
import { createEvaluatorRegistry, defaultEvaluators } from '../evaluators/evaluator-registry.js';
import { mockProviderFactory } from '../provider/mock-provider.js';
import type { Provider } from '../provider/provider.js';
import { createProviderRegistry } from '../provider/provider-registry.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import { planRun } from './plan-run.js';
import { runEvaluation } from './run-evaluation.js';
import type { ProviderRole, RunEvaluationOptions } from './run-options.js';

const VERDICT = JSON.stringify({ score: 1, hits: ['fine'], misses: [], reasoning: 'ok' });

function evalCase(id: string): EvalCase {
  return {
    id,
    dataset: 'suite',
    filePath: '/evals/suite.yaml',
    inputMessages: [{ role: 'user', content: [{ type: 'text', value: `question ${id}` }] }],
    expectedMessages: [],
    evaluators: [{ name: 'quality', type: 'llm_judge' }],
  };
}

function target(name: string, overrides: Partial<ResolvedTarget> = {}): ResolvedTarget {
  return { name, provider: 'mock', settings: {}, filePath: '/t.yaml', baseDir: '/', ...overrides };
}

/** Providers that refuse to answer once closed, counting what was made and closed, by role. */
function closingProviders() {
  const created: Record<ProviderRole, number> = { target: 0, judge: 0 };
  const closed: Record<ProviderRole, number> = { target: 0, judge: 0 };
  const create = (resolved: ResolvedTarget, role: ProviderRole): Provider => {
    created[role]++;
    let open = true;
    return {
      specificationVersion: 'v1',
      id: `closing:${resolved.name}`,
      kind: 'closing',
      targetName: resolved.name,
      async invoke() {
        if (!open) throw new Error(`provider of "${resolved.name}" was asked after it was closed`);
        return role === 'judge'
          ? { text: VERDICT }
          : { text: 'an answer', warnings: ['1 trace event was dropped'] };
      },
      async close() {
        open = false;
        closed[role]++;
      },
    };
  };
  return { create, created, closed };
}

describe('run state', () => {
  it('is made afresh by every run, even of one options object', async () => {
    const providerRegistry = createProviderRegistry([mockProviderFactory]);
    const evaluatorRegistry = createEvaluatorRegistry(defaultEvaluators());
    const { plan, issues } = planRun({
      cases: [evalCase('a'), evalCase('b')],
      targets: [target('default', { judgeTarget: 'judge' }), target('judge')],
      providerRegistry,
      evaluatorRegistry,
    });
    expect(issues).toEqual([]);
    const providers = closingProviders();
    const warnings: string[] = [];
    const options: RunEvaluationOptions = {
      plan,
      providerRegistry,
      evaluatorRegistry,
      workers: 1,
      // No credential in the environment: nothing to mask, so the run uses `options` as given.
      providerContext: { env: {} },
      createProvider: providers.create,
      onWarning: (message) => warnings.push(message),
    };

    for (let round = 1; round <= 2; round++) {
      const outcome = await runEvaluation(options);
      expect(outcome.results.map((result) => [result.evalId, result.error, result.passed])).toEqual(
        [
          ['a', undefined, true],
          ['b', undefined, true],
        ],
      );
      // Each run starts its own judge and closes it, and shows the first reply warning again.
      expect(providers.created).toEqual({ target: round, judge: round });
      expect(providers.closed).toEqual({ target: round, judge: round });
      expect(warnings.filter((line) => line.includes('1 trace event was dropped'))).toHaveLength(
        round,
      );
    }
  });
});
