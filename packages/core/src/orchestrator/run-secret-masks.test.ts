import { describe, expect, it } from 'vitest';
import type { EvalCase } from '../eval-file/eval-case.js';
import { createEvaluatorRegistry, defaultEvaluators } from '../evaluators/evaluator-registry.js';
import { mockProviderFactory } from '../provider/mock-provider.js';
import type { Provider } from '../provider/provider.js';
import type { ProviderContext } from '../provider/provider-factory.js';
import { createProviderRegistry } from '../provider/provider-registry.js';
import type { AttemptRecord, EvaluationResult } from './evaluation-result.js';
import { planRun } from './plan-run.js';
import { runEvaluation } from './run-evaluation.js';

const KEY = 'sk-env-0123456789abcdef';
const TARGET_SECRET = 'target-secret-value';

function leakyCase(): EvalCase {
  return {
    id: 'leak',
    dataset: 'suite',
    filePath: '/evals/suite.yaml',
    inputMessages: [{ role: 'user', content: [{ type: 'text', value: `my key is ${KEY}` }] }],
    expectedMessages: [],
    // The grader sees the real answer: it passes only if the key is there unmasked.
    evaluators: [{ name: 'has-key', type: 'contains', value: KEY }],
  };
}

/** A provider that repeats the prompt, logs it, and warns with it (as a careless agent would). */
function echoing(context: ProviderContext | undefined): Provider {
  return {
    specificationVersion: 'v1',
    id: 'echo',
    kind: 'echo',
    targetName: 'default',
    async invoke(request) {
      context?.log?.(`sending ${request.question} with ${TARGET_SECRET}`);
      return {
        text: `${request.question} / ${TARGET_SECRET}`,
        trace: [
          {
            type: 'tool_call',
            timestamp: new Date().toISOString(),
            name: 'env',
            input: { OPENAI_API_KEY: KEY },
          },
        ],
        warnings: [`the agent printed ${KEY}`],
      };
    },
  };
}

describe('runEvaluation masks secrets', () => {
  it("masks the environment's credentials and the target's values in every output, not for graders", async () => {
    const providerRegistry = createProviderRegistry([mockProviderFactory]);
    const evaluatorRegistry = createEvaluatorRegistry(defaultEvaluators());
    const { plan } = planRun({
      cases: [leakyCase()],
      targets: [
        {
          name: 'default',
          provider: 'mock',
          settings: {},
          filePath: '/t.yaml',
          baseDir: '/',
          secretValues: [TARGET_SECRET],
        },
      ],
      providerRegistry,
      evaluatorRegistry,
    });
    const logged: string[] = [];
    const warnings: string[] = [];
    const prompts: string[] = [];
    const attempts: AttemptRecord[] = [];
    const results: EvaluationResult[] = [];
    await runEvaluation({
      plan,
      providerRegistry,
      evaluatorRegistry,
      createProvider: (_target, _role, context) => echoing(context),
      providerContext: {
        env: { OPENAI_API_KEY: KEY },
        log: (line) => logged.push(line),
      },
      onWarning: (message) => warnings.push(message),
      onPrompt: (_case, prompt) => {
        prompts.push(JSON.stringify(prompt));
      },
      onAttempt: (record) => {
        attempts.push(record);
      },
      onResult: (result) => {
        results.push(result);
      },
    });
    const everything = JSON.stringify({ logged, warnings, prompts, attempts, results });
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain(TARGET_SECRET);
    expect(results[0]).toMatchObject({
      passed: true,
      candidateAnswer: 'my key is *** / ***',
    });
    expect(results[0]!.trace?.[0]).toMatchObject({ input: { OPENAI_API_KEY: '***' } });
    expect(logged).toEqual(['sending my key is *** with ***']);
    expect(warnings.some((warning) => warning.includes('the agent printed ***'))).toBe(true);
    expect(prompts[0]).toContain('my key is ***');
  });

  it('masks them in a failed health check, which stops the run', async () => {
    const providerRegistry = createProviderRegistry([mockProviderFactory]);
    const evaluatorRegistry = createEvaluatorRegistry(defaultEvaluators());
    const { plan } = planRun({
      cases: [leakyCase()],
      targets: [
        { name: 'default', provider: 'mock', settings: {}, filePath: '/t.yaml', baseDir: '/' },
      ],
      providerRegistry,
      evaluatorRegistry,
    });
    const failing: Provider = {
      ...echoing(undefined),
      async healthcheck() {
        throw new Error(`401 for key ${KEY}`);
      },
    };
    await expect(
      runEvaluation({
        plan,
        providerRegistry,
        evaluatorRegistry,
        createProvider: () => failing,
        providerContext: { env: { OPENAI_API_KEY: KEY } },
      }),
    ).rejects.toThrow('health check of target "default" failed: 401 for key ***');
  });
});
