import { describe, expect, it } from 'vitest';
import type { EvalCase } from '../eval-file/eval-case.js';
import type { WorkspaceConfig } from '../workspace/workspace-config.js';
import { createEvaluatorRegistry, defaultEvaluators } from './evaluator-registry.js';
import { needsWorkspace } from './needs-workspace.js';
import { makeConfig, makeContext } from './test-support/make-context.js';
import { workspaceGraderIssues } from './workspace-grader-issues.js';

const registry = createEvaluatorRegistry(defaultEvaluators());

const workspace: WorkspaceConfig = {
  template: '/project/template',
  isolation: 'per_case',
  mode: 'pooled',
  hooks: {},
  baseDir: '/project/evals',
  key: 'k',
};

function evalCase(overrides: Partial<EvalCase>): EvalCase {
  return { ...makeContext().evalCase, line: 7, column: 5, ...overrides };
}

describe('workspaceGraderIssues', () => {
  it('reports each grader that reads a workspace in a case without one, at the grader', () => {
    const issues = workspaceGraderIssues(
      evalCase({
        evaluators: [
          makeConfig('contains', { value: 'x' }),
          { name: 'tests', type: 'command', command: 'npm test' },
          {
            name: 'outcome',
            type: 'composite',
            evaluators: [{ type: 'diff', must_change: ['src/**'] }],
          },
        ],
        evaluatorPositions: { tests: { line: 12, column: 15 } },
      }),
      registry,
    );
    expect(issues).toEqual([
      {
        severity: 'error',
        file: makeContext().evalCase.filePath,
        caseId: 'case-1',
        line: 12,
        column: 15,
        message:
          'grader "tests" (command) judges the files the agent leaves in its workspace, and the case has no workspace',
        hint: 'add a `workspace:` block (`template: ./project` or `repos:`) to the eval file or to the case, so the agent works in a folder the grader can read',
      },
      expect.objectContaining({
        line: 7,
        column: 5,
        message: expect.stringMatching(/^grader "outcome" \(composite\) judges the files/),
      }),
    ]);
  });

  it('points at the case for a grader of the file-level list, and is silent with a workspace', () => {
    const shared = evalCase({
      evaluators: [{ name: 'notes', type: 'file', path: 'NOTES.md', exists: true }],
      evaluatorPositions: { notes: { line: 4, column: 9, shared: true } },
    });
    expect(workspaceGraderIssues(shared, registry)).toEqual([
      expect.objectContaining({ line: 7, column: 5, caseId: 'case-1' }),
    ]);
    expect(workspaceGraderIssues({ ...shared, workspace }, registry)).toEqual([]);
  });

  it('knows which graders read a workspace', () => {
    expect(needsWorkspace(makeConfig('command'), registry)).toBe(true);
    expect(needsWorkspace(makeConfig('file'), registry)).toBe(true);
    expect(needsWorkspace(makeConfig('diff'), registry)).toBe(true);
    // code_judge gets the workspace when there is one, and grades without one too.
    expect(needsWorkspace(makeConfig('code_judge'), registry)).toBe(false);
    expect(
      needsWorkspace(makeConfig('composite', { evaluators: [{ type: 'contains' }] }), registry),
    ).toBe(false);
    expect(needsWorkspace(makeConfig('no_such_type'), registry)).toBe(false);
  });
});
