import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadEvalFile } from './load-eval-file.js';

// Loading AgentV 1.x grader syntax: judge_target, prompt files, case rubrics, composites.

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function load(yaml: string, files: Record<string, string> = {}) {
  dir = await mkdtemp(path.join(tmpdir(), 'agentv-graders-'));
  await mkdir(path.join(dir, '.git'));
  for (const [name, content] of Object.entries(files)) {
    await writeFile(path.join(dir, name), content);
  }
  await writeFile(path.join(dir, 'suite.yaml'), yaml);
  return loadEvalFile(path.join(dir, 'suite.yaml'), { cwd: dir });
}

describe('loading LLM graders', () => {
  it('reads execution.judge_target, case rubrics with expected_outcome, and composites', async () => {
    const result = await load(
      `execution:
  judge_target: file-judge
evalcases:
  - id: one
    expected_outcome: Refund confirmed
    input_messages: [{ role: user, content: hi }]
    rubrics:
      - { id: amount, expected_outcome: Mentions $20, weight: 2, required: false }
      - Is polite
    evaluators:
      - { type: llm_judge, prompt: ./judge.md }
      - type: composite
        evaluators:
          - { name: a, type: contains, value: x }
        aggregator: { type: weighted_average, weights: { a: 2 } }
  - id: two
    execution: { judge_target: case-judge }
    input_messages: [{ role: user, content: hi }]
`,
      { 'judge.md': 'Grade {{ candidate_answer }}' },
    );
    expect(result.issues).toEqual([]);
    const [one, two] = result.value!.cases;
    expect(one!.judgeTarget).toBe('file-judge');
    expect(two!.judgeTarget).toBe('case-judge');
    expect(one!.rubricItems).toEqual([
      { id: 'amount', description: 'Mentions $20', weight: 2, required: false },
      { id: 'rubric-2', description: 'Is polite', weight: 1, required: true },
    ]);
    expect(one!.evaluators.map((config) => [config.name, config.type])).toEqual([
      ['llm_judge', 'llm_judge'],
      ['composite', 'composite'],
      ['rubrics', 'rubric'],
    ]);
    expect(two!.evaluators).toEqual([]);
  });

  it('reports a missing prompt or schema file at load time', async () => {
    const result = await load(`evalcases:
  - id: one
    input_messages: [{ role: user, content: hi }]
    evaluators:
      - { type: llm_judge, prompt: ./prompts/missing.md }
      - type: composite
        evaluators:
          - { type: json_schema, schema: ./missing-schema.json }
`);
    expect(result.issues.map((issue) => [issue.line, issue.message])).toEqual([
      [
        5,
        expect.stringMatching(
          /^evaluator "llm_judge": prompt file \.\/prompts\/missing\.md not found/,
        ),
      ],
      [
        8,
        expect.stringMatching(
          /^evaluator "json_schema": schema file \.\/missing-schema\.json not found/,
        ),
      ],
    ]);
  });
});
