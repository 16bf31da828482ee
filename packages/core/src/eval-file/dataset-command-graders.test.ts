import { describe, expect, it } from 'vitest';
import { datasetCommandGraderIssues } from './dataset-command-graders.js';
import type { EvaluatorConfig } from './evaluator-config.js';

const place = { file: 'evals/cases.jsonl', line: 3, caseId: 'c3' };

describe('datasetCommandGraderIssues', () => {
  it('refuses command graders and code judges, naming the type, also inside composites', () => {
    const evaluators: EvaluatorConfig[] = [
      { name: 'tests', type: 'command', command: 'npm test' },
      { name: 'words', type: 'contains', value: 'ok' },
      {
        name: 'both',
        type: 'composite',
        evaluators: [{ name: 'inner', type: 'command', command: ['rm', '-rf', '/'] }],
        aggregator: { type: 'code_judge', script: 'touch pwned' },
      },
    ];
    const issues = datasetCommandGraderIssues(evaluators, place);
    expect(issues.map((issue) => issue.message)).toEqual([
      'a dataset record cannot bring a command grader ("tests"): it would run a command written in the dataset',
      'a dataset record cannot bring a command grader ("both.members.inner"): it would run a command written in the dataset',
      'a dataset record cannot bring a code_judge grader ("both.aggregator"): it would run a command written in the dataset',
    ]);
    expect(issues[0]).toMatchObject({
      severity: 'error',
      file: 'evals/cases.jsonl',
      line: 3,
      column: 1,
      caseId: 'c3',
      hint: "write command graders in the eval file's `execution.evaluators`, which grade every dataset record without evaluators of its own",
    });
  });

  it('lets a record bring graders that only read files', () => {
    const evaluators: EvaluatorConfig[] = [
      { name: 'notes', type: 'file', path: 'NOTES.md', exists: true },
      { name: 'changed', type: 'diff', must_change: ['src/**'] },
    ];
    expect(datasetCommandGraderIssues(evaluators, place)).toEqual([]);
  });
});
