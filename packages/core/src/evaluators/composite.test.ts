import { describe, expect, it } from 'vitest';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import { createEvaluatorRegistry, defaultEvaluators } from './evaluator-registry.js';
import { gradeCase } from './grade-case.js';
import { makeConfig, makeContext } from './test-support/make-context.js';
import { mockJudge } from './test-support/mock-judge.js';

const registry = createEvaluatorRegistry(defaultEvaluators());
const context = makeContext({ candidateAnswer: 'Your refund of $20 is on its way.' });
const members = [
  { name: 'refund', type: 'contains', value: 'refund' },
  { name: 'apology', type: 'contains', value: 'sorry' },
];

function composite(options: Record<string, unknown>): EvaluatorConfig {
  return makeConfig('composite', { evaluators: members, ...options });
}

describe('composite', () => {
  it('averages its members with weights and keeps each member result', async () => {
    const grade = await gradeCase(
      [composite({ aggregator: { type: 'weighted_average', weights: { refund: 3 } } })],
      context,
      registry,
    );
    const [result] = grade.evaluatorResults;
    expect(result!.score).toBe(0.75);
    expect(result!.hits).toEqual(['[refund] Answer contains "refund"']);
    expect(result!.misses).toEqual(['[apology] Answer does not contain "sorry"']);
    expect(result!.members!.map((member) => [member.name, member.score, member.weight])).toEqual([
      ['refund', 1, 3],
      ['apology', 0, 1],
    ]);
  });

  it('uses weighted_average without an aggregator and nests composites', async () => {
    const nested = makeConfig('composite', {
      evaluators: [
        { name: 'inner', type: 'composite', evaluators: members },
        { name: 'json', type: 'is_json' },
      ],
    });
    const grade = await gradeCase([nested], context, registry);
    const [result] = grade.evaluatorResults;
    expect(result!.score).toBe(0.25);
    expect(result!.members![0]!.members!.map((member) => member.name)).toEqual([
      'refund',
      'apology',
    ]);
    expect(result!.hits).toEqual(['[inner] [refund] Answer contains "refund"']);
  });

  it('runs a code_judge aggregator on the member results', async () => {
    const grade = await gradeCase(
      [
        composite({
          aggregator: { type: 'code_judge', script: 'node ./graders/aggregate-min.mjs' },
        }),
      ],
      context,
      registry,
    );
    expect(grade.evaluatorResults[0]).toMatchObject({
      score: 0,
      hits: ['members: refund, apology'],
      reasoning: 'lowest is apology',
    });
    expect(grade.evaluatorResults[0]!.members).toHaveLength(2);

    // `path` is the older AgentV spelling of `script`.
    const older = await gradeCase(
      [composite({ aggregator: { type: 'code_judge', path: 'node ./graders/aggregate-min.mjs' } })],
      context,
      registry,
    );
    expect(older.evaluatorResults[0]).toMatchObject({ score: 0, reasoning: 'lowest is apology' });
  });

  it('asks the judge as an llm_judge aggregator', async () => {
    const grade = await gradeCase(
      [
        composite({
          aggregator: { type: 'llm_judge', prompt: 'Combine: {{EVALUATOR_RESULTS_JSON}}' },
        }),
      ],
      makeContext({ judge: mockJudge('Final: {"score": 0.6, "reasoning": "mixed"}') }),
      registry,
    );
    expect(grade.evaluatorResults[0]).toMatchObject({
      score: 0.6,
      verdict: 'borderline',
      reasoning: 'mixed',
    });
  });

  it('gives members the judge and the trace of the case', async () => {
    const grade = await gradeCase(
      [
        makeConfig('composite', {
          evaluators: [
            { type: 'llm_judge' },
            { type: 'tool_trajectory', mode: 'any_order', minimums: { search: 1 } },
          ],
        }),
      ],
      makeContext({
        judge: mockJudge('{"score": 1}'),
        trace: [{ type: 'tool_call', timestamp: '2025-01-01T00:00:00.000Z', name: 'search' }],
      }),
      registry,
    );
    expect(grade.evaluatorResults[0]!.members!.map((member) => member.score)).toEqual([1, 1]);
    expect(grade.passed).toBe(true);
  });

  it('is an error when a member or the aggregator fails, keeping the member results', async () => {
    const grade = await gradeCase(
      [composite({ aggregator: { type: 'llm_judge' } })],
      makeContext({ judge: mockJudge('no idea') }),
      registry,
    );
    const [result] = grade.evaluatorResults;
    expect(result!.verdict).toBe('error');
    expect(result!.error).toContain(
      'aggregator (llm_judge): judge target "judge" gave an unusable reply',
    );
    expect(result!.members).toHaveLength(2);
  });

  it('validates members and aggregator before the run', () => {
    expect(messagesOf(registry.validate(makeConfig('composite')))).toEqual([
      expect.stringContaining('"evaluators" must be a non-empty list of members'),
    ]);
    expect(
      messagesOf(
        registry.validate(
          composite({
            evaluators: [{ type: 'contains' }, { type: 'nope' }],
            aggregator: { type: 'median' },
          }),
        ),
      ),
    ).toEqual([
      expect.stringContaining('member "contains": "value" is missing'),
      expect.stringContaining('member "nope" has unknown type "nope"'),
      '"aggregator.type" must be one of weighted_average, code_judge, llm_judge, got "median"',
    ]);
    expect(
      messagesOf(
        registry.validate(
          composite({ aggregator: { type: 'weighted_average', weights: { other: 1 } } }),
        ),
      ),
    ).toEqual([
      '"aggregator.weights" names "other", which is not a member; members: refund, apology',
    ]);
    expect(
      messagesOf(
        registry.validate(
          composite({ evaluators: [{ type: 'contains', value: 'x', required: true }] }),
        ),
      ),
    ).toEqual([
      'member "contains": "required" is not read on a member of a composite; ignoring it would change the verdict',
    ]);
  });
});

function messagesOf(issues: readonly { message: string }[]): string[] {
  return issues.map((issue) => issue.message);
}
