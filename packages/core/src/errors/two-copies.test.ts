import { cp, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A provider package may resolve its own copy of @agentv/core. These tests load
// core's built module twice, as two separate module instances (the second from a
// copy of `dist/`), and check that each copy recognises the other's errors.
type Core = typeof import('../index.js') &
  typeof import('../provider-utils.js') &
  typeof import('../internal.js') &
  typeof import('../test/index.js');

/** One copy of core: its entries (`dist/index.js`, `provider-utils.js`, …) under `dir`, merged. */
async function loadCore(dir: string): Promise<Core> {
  const entries = ['index.js', 'provider-utils.js', 'internal.js', 'test/index.js'];
  const modules = await Promise.all(
    entries.map((entry) => import(pathToFileURL(path.join(dir, 'dist', entry)).href)),
  );
  return Object.assign({}, ...modules);
}

const coreDir = fileURLToPath(new URL('../../', import.meta.url));
let copyDir: string;
let first: Core;
let second: Core;

beforeAll(async () => {
  // Inside node_modules, so the copy resolves core's dependencies (yaml, zod) as installed.
  copyDir = await mkdtemp(path.join(coreDir, 'node_modules', '.agentv-second-copy-'));
  await cp(path.join(coreDir, 'dist'), path.join(copyDir, 'dist'), { recursive: true });
  first = await loadCore(coreDir);
  second = await loadCore(copyDir);
  // Copying and importing dist twice is slow on a loaded machine; the default 10 s is not a goal here.
}, 120_000);

afterAll(async () => {
  if (copyDir) await rm(copyDir, { recursive: true, force: true });
});

describe('AgentV errors across two copies of core', () => {
  it('are separate classes, yet each copy recognises the other copy’s errors', () => {
    const usage = new second.UsageError('no eval files match "evals/*.yml"', {
      hint: 'check the pattern',
    });
    expect(usage instanceof first.AgentvError).toBe(false);
    expect(first.isAgentvError(usage)).toBe(true);
    expect(first.isUsageError(usage)).toBe(true);
    expect(first.isProviderError(usage)).toBe(false);
    expect(usage).toMatchObject({ kind: 'usage', name: 'UsageError', hint: 'check the pattern' });

    const provider = new first.ProviderError('timed out', { retryable: false });
    expect(second.isProviderError(provider)).toBe(true);
    expect(second.isAgentvError(provider, 'provider')).toBe(true);
    expect(second.isEvaluatorError(provider)).toBe(false);

    const invalid = new second.InvalidInputError([
      { severity: 'error', message: 'unknown key "inptu"', file: 'evals/a.yaml', line: 3 },
    ]);
    expect(first.isInvalidInputError(invalid)).toBe(true);
    expect(first.isEvaluatorError(new second.EvaluatorError('judge crashed'))).toBe(true);
  });

  it('does not mistake plain errors or look-alike objects for AgentV errors', () => {
    expect(first.isAgentvError(new Error('boom'))).toBe(false);
    expect(first.isAgentvError({ kind: 'provider', hint: 'x', message: 'y' })).toBe(false);
    expect(first.isAgentvError(undefined)).toBe(false);
    expect(first.isAgentvError('provider')).toBe(false);
  });

  it('retries and reports a provider error thrown by the other copy as its own', async () => {
    const calls = new Map<string, number>();
    const providerRegistry = first.createProviderRegistry([first.mockProviderFactory]);
    const evaluatorRegistry = first.createEvaluatorRegistry(first.defaultEvaluators());
    const { plan, issues } = first.planRun({
      cases: ['flaky', 'broken'].map((id) => ({
        id,
        dataset: 'suite',
        filePath: '/evals/suite.yaml',
        inputMessages: [{ role: 'user' as const, content: [{ type: 'text' as const, value: id }] }],
        expectedMessages: [],
        evaluators: [{ name: 'says-ok', type: 'contains', value: 'ok' }],
      })),
      targets: [
        { name: 'default', provider: 'mock', settings: {}, filePath: '/t.yaml', baseDir: '/' },
      ],
      providerRegistry,
      evaluatorRegistry,
    });
    expect(issues).toEqual([]);
    const { results } = await first.runEvaluation({
      plan,
      providerRegistry,
      evaluatorRegistry,
      maxRetries: 2,
      retryPolicy: { baseDelayMs: 1, maxDelayMs: 2 },
      createProvider: () => ({
        specificationVersion: 'v1',
        id: 'other-copy',
        kind: 'other-copy',
        targetName: 'default',
        async invoke(request) {
          const call = (calls.get(request.evalCaseId) ?? 0) + 1;
          calls.set(request.evalCaseId, call);
          if (request.evalCaseId === 'broken') {
            throw new second.ProviderError('agent exited with code 3', {
              retryable: false,
              hint: 'run the agent by hand to see why',
            });
          }
          if (call === 1) throw new second.ProviderError('rate limited', { retryAfterMs: 1 });
          return { text: 'ok' };
        },
      }),
    });
    const byId = new Map(results.map((result) => [result.evalId, result]));
    // Not retryable per the other copy's flag: one attempt, message plus hint.
    expect(calls.get('broken')).toBe(1);
    expect(byId.get('broken')).toMatchObject({ attempts: 1, passed: false });
    expect(byId.get('broken')?.error).toContain('agent exited with code 3');
    expect(byId.get('broken')?.error).toContain('run the agent by hand to see why');
    // Retryable: the second attempt answers.
    expect(calls.get('flaky')).toBe(2);
    expect(byId.get('flaky')).toMatchObject({ attempts: 2, passed: true });
  });
});
