import { describe, expect, it } from 'vitest';
import { promptFileOf } from '../eval-file/prompt-file-of.js';
import { EvaluatorError } from './evaluator-error.js';
import { createEvaluatorRegistry, defaultEvaluators } from './evaluator-registry.js';
import { extractJudgeJson } from './extract-judge-json.js';
import { gradeCase } from './grade-case.js';
import { judgeVariables, loadPromptTemplate, renderTemplate } from './judge-prompt.js';
import { llmJudgeEvaluator } from './llm-judge.js';
import { makeConfig, makeContext } from './test-support/make-context.js';
import { mockJudge } from './test-support/mock-judge.js';

const registry = createEvaluatorRegistry(defaultEvaluators());

function gradeWith(reply: string) {
  return llmJudgeEvaluator.evaluate(
    makeConfig('llm_judge'),
    makeContext({ judge: mockJudge(reply) }),
  );
}

describe('llm_judge', () => {
  it('reads a plain JSON reply', async () => {
    const result = await gradeWith(
      '{"score": 0.9, "hits": ["says 42"], "misses": [], "reasoning": "Correct."}',
    );
    expect(result).toEqual({ score: 0.9, hits: ['says 42'], misses: [], reasoning: 'Correct.' });
  });

  it('finds the object in a code fence with prose around it', async () => {
    const reply = [
      'Here is my grade:',
      '```json',
      '{"score": 0.5, "hits": ["shows work"], "misses": ["wrong total {sic}"], "reasoning": "Half."}',
      '```',
      'Let me know if you need more.',
    ].join('\n');
    const result = await gradeWith(reply);
    expect(result.score).toBe(0.5);
    expect(result.misses).toEqual(['wrong total {sic}']);
  });

  it('finds a bare object inside prose', () => {
    expect(extractJudgeJson('Sure! {"score": 1, "note": "a } in text"} Done.')).toEqual({
      score: 1,
      note: 'a } in text',
    });
    expect(extractJudgeJson('no json here')).toBeUndefined();
  });

  it('clamps the score to [0, 1] and keeps at most 4 hits and misses, saying how many were left out', async () => {
    const many = ['a', 'b', 'c', 'd', 'e', 'f'];
    const high = await gradeWith(JSON.stringify({ score: 7, hits: many, misses: many }));
    expect(high.score).toBe(1);
    expect(high.hits).toEqual(['a', 'b', 'c', 'd', '… and 2 more']);
    expect(high.misses).toEqual(['a', 'b', 'c', 'd', '… and 2 more']);
    const low = await gradeWith('{"score": -0.5}');
    expect(low).toEqual({ score: 0, hits: [], misses: [] });
  });

  it('turns an unparseable reply into an evaluator error with an excerpt, not a zero', async () => {
    const error = await gradeWith('I think the answer is pretty good overall.').catch((e) => e);
    expect(error).toBeInstanceOf(EvaluatorError);
    expect(error.message).toBe(
      'judge target "judge" gave an unusable reply twice: it holds no JSON object; the reply was: I think the answer is pretty good overall.',
    );

    const grade = await gradeCase(
      [makeConfig('llm_judge')],
      makeContext({ judge: mockJudge('{"verdict": "good"}') }),
      registry,
    );
    expect(grade.passed).toBe(false);
    expect(grade.evaluatorResults[0]!.verdict).toBe('error');
    expect(grade.error).toContain('"score" must be a number from 0 to 1, got nothing');
    expect(grade.error).toContain('the reply was: {"verdict": "good"}');
  });

  it('is an error when no judge is configured', async () => {
    await expect(
      llmJudgeEvaluator.evaluate(makeConfig('llm_judge'), makeContext()),
    ).rejects.toThrow('no judge target is configured');
  });

  it('renders custom templates from a file relative to the eval file', async () => {
    expect(promptFileOf('./judge-prompt.md')).toBe('./judge-prompt.md');
    expect(promptFileOf('prompts/judge.md')).toBe('prompts/judge.md');
    expect(promptFileOf('Grade {{ candidate_answer }} please.')).toBeUndefined();
    const context = makeContext({
      evalCase: { expectedOutcome: 'States 42' },
      candidateAnswer: '  42  ',
    });
    const template = await loadPromptTemplate('./graders/judge-prompt.md', context, 'default');
    expect(renderTemplate(template, judgeVariables(context))).toBe(
      'Grade this answer.\nQ: What is 6 x 7?\nA: 42\nOutcome: States 42\nUnknown: {{ not_a_variable }}\n',
    );
    await expect(loadPromptTemplate('./missing.md', context, 'default')).rejects.toThrow(
      /prompt file \.\/missing\.md cannot be read/,
    );
  });

  it('gives every judge prompt variable', () => {
    const variables = judgeVariables(
      makeContext({
        referenceAnswer: '42',
        traceSummary: {
          eventCount: 1,
          toolNames: ['calc'],
          toolCallsByName: { calc: 1 },
          errorCount: 0,
        },
      }),
    );
    expect(Object.keys(variables).sort()).toEqual([
      'candidate_answer',
      'conversation',
      'expected_messages',
      'expected_outcome',
      'input_messages',
      'output_messages',
      'question',
      'reference_answer',
      'trace_summary',
    ]);
    expect(JSON.parse(variables.input_messages!)).toEqual([
      { role: 'user', content: 'What is 6 x 7?' },
    ]);
    expect(JSON.parse(variables.trace_summary!).toolNames).toEqual(['calc']);
  });

  it('validates its prompt option', () => {
    expect(messagesOf(registry.validate(makeConfig('llm_judge', { prompt: 7 })))).toEqual([
      '"prompt" must be a prompt template or the path of a template file, got 7',
    ]);
    expect(
      messagesOf(registry.validate(makeConfig('llm_judge', { prompt: './judge.md' }))),
    ).toEqual([]);
  });
});

function messagesOf(issues: readonly { message: string }[]): string[] {
  return issues.map((issue) => issue.message);
}
