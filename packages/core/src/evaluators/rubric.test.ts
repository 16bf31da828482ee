import { describe, expect, it } from 'vitest';
import type { RubricItem } from '../eval-file/eval-case.js';
import { createEvaluatorRegistry, defaultEvaluators } from './evaluator-registry.js';
import { gradeCase } from './grade-case.js';
import { rubricEvaluator } from './rubric.js';
import { makeConfig, makeContext } from './test-support/make-context.js';
import { mockJudge } from './test-support/mock-judge.js';

const registry = createEvaluatorRegistry(defaultEvaluators());

const items: RubricItem[] = [
  { id: 'amount', description: 'Mentions the refund amount', weight: 3, required: true },
  { id: 'polite', description: 'Is polite', weight: 1, required: false },
];

const reply = (amount: boolean, polite: boolean) =>
  `\`\`\`json\n${JSON.stringify({
    checks: [
      { id: 'amount', satisfied: amount, reasoning: amount ? 'says $20' : 'no amount' },
      { id: 'polite', satisfied: polite, reasoning: 'tone' },
    ],
    overall_reasoning: 'Checked both.',
  })}\n\`\`\``;

describe('rubric', () => {
  it('passes every item under --dry-run without asking the judge', async () => {
    const judge = {
      targetName: 'judge',
      dryRun: true,
      ask: () => Promise.reject(new Error('a dry-run judge must not be asked')),
    };
    const result = await rubricEvaluator.evaluate(
      makeConfig('rubric'),
      makeContext({ evalCase: { rubricItems: items }, judge }),
    );
    expect(result.score).toBe(1);
    expect(result.verdict).toBe('pass');
    expect(result.details).toEqual({
      items: items.map((item) => ({ ...item, satisfied: true, reasoning: '' })),
    });
  });

  it('scores the weight of satisfied items and reports each item', async () => {
    const result = await rubricEvaluator.evaluate(
      makeConfig('rubric'),
      makeContext({ evalCase: { rubricItems: items }, judge: mockJudge(reply(true, false)) }),
    );
    expect(result.score).toBe(0.75);
    expect(result.verdict).toBe('borderline');
    expect(result.failsCase).toBeUndefined();
    expect(result.hits).toEqual(['[amount] Mentions the refund amount: says $20']);
    expect(result.misses).toEqual(['[polite] Is polite: tone']);
    expect(result.reasoning).toBe('Checked both.');
    expect(result.details).toEqual({
      items: [
        { ...items[0], satisfied: true, reasoning: 'says $20' },
        { ...items[1], satisfied: false, reasoning: 'tone' },
      ],
    });
  });

  it('fails the case when a required item is missed, even above the threshold', async () => {
    const grade = await gradeCase(
      [
        makeConfig('rubric', {
          rubrics: ['Is polite', { id: 'amount', description: 'Says $20', weight: 0.1 }],
        }),
      ],
      makeContext({
        judge: mockJudge(
          JSON.stringify({
            checks: [
              { id: 'rubric-1', satisfied: true, reasoning: 'ok' },
              { id: 'amount', satisfied: false, reasoning: 'missing' },
            ],
          }),
        ),
      }),
      registry,
      { threshold: 0.5 },
    );
    expect(grade.score).toBeCloseTo(1 / 1.1);
    expect(grade.passed).toBe(false);
    expect(grade.error).toBeUndefined();
    expect(grade.evaluatorResults[0]).toMatchObject({ verdict: 'fail', failsCase: true });
  });

  it('passes when every item is satisfied', async () => {
    const grade = await gradeCase(
      [makeConfig('rubric')],
      makeContext({ evalCase: { rubricItems: items }, judge: mockJudge(reply(true, true)) }),
      registry,
    );
    expect(grade).toMatchObject({ score: 1, passed: true });
  });

  it('is an error when the judge leaves an item out, and when there are no items', async () => {
    const partial = mockJudge('{"checks": [{"id": "amount", "satisfied": true}]}');
    await expect(
      rubricEvaluator.evaluate(
        makeConfig('rubric'),
        makeContext({ evalCase: { rubricItems: items }, judge: partial }),
      ),
    ).rejects.toThrow('no check for rubric item(s) polite');
    await expect(
      rubricEvaluator.evaluate(makeConfig('rubric'), makeContext({ judge: partial })),
    ).rejects.toThrow('the rubric has no items');
  });

  it('validates items written on the evaluator', () => {
    expect(messagesOf(registry.validate(makeConfig('rubric', { rubrics: [] })))).toEqual([
      expect.stringContaining('the rubric has no items'),
    ]);
    expect(
      messagesOf(
        registry.validate(
          makeConfig('rubric', { rubrics: [{ expected_outcome: 'Says hi', weight: -1 }] }),
        ),
      ),
    ).toEqual([expect.stringContaining('rubric item 1: "weight" must be a number >= 0, got -1')]);
    expect(
      messagesOf(
        registry.validate(
          makeConfig('rubric', { rubrics: [{ id: 'a', expected_outcome: 'Says hi' }] }),
        ),
      ),
    ).toEqual([]);
  });

  it('grades llm_judge with rubrics like a rubric (AgentV 1.x)', async () => {
    const result = await registry.get('llm_judge').evaluate(
      makeConfig('llm_judge', { rubrics: ['Mentions the refund amount'] }),
      makeContext({
        judge: mockJudge('{"checks": [{"id": "rubric-1", "satisfied": true, "reasoning": "yes"}]}'),
      }),
    );
    expect(result).toMatchObject({ score: 1, verdict: 'pass' });
  });
});

function messagesOf(issues: readonly { message: string }[]): string[] {
  return issues.map((issue) => issue.message);
}
