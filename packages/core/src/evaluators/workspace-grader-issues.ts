import type { Issue } from '../errors/input-issue.js';
import type { EvalCase } from '../eval-file/eval-case.js';
import { evaluatorIssuePosition } from '../eval-file/evaluator-positions.js';
import type { EvaluatorRegistry } from './evaluator.js';
import { needsWorkspace } from './needs-workspace.js';
import { NO_WORKSPACE_HINT } from './require-workspace.js';

/**
 * Errors for the graders of `evalCase` that read a workspace (`command`,
 * `file`, `diff`, a composite with one of them: see `needsWorkspace`) when
 * the case has none, so `validate` and `eval` report them before anything
 * runs. Each names the grader and points at it (at the case when the grader
 * is one of the file's `execution.evaluators`, which other cases may use
 * with a workspace).
 */
export function workspaceGraderIssues(evalCase: EvalCase, registry: EvaluatorRegistry): Issue[] {
  if (evalCase.workspace !== undefined) return [];
  const issues: Issue[] = [];
  for (const config of evalCase.evaluators) {
    if (!needsWorkspace(config, registry)) continue;
    const { shared, ...position } = evaluatorIssuePosition(evalCase, config.name, undefined);
    const issue: Issue = {
      severity: 'error',
      file: evalCase.filePath,
      caseId: evalCase.id,
      ...(shared ? caseLine(evalCase) : position),
      message: `grader "${config.name}" (${config.type}) judges the files the agent leaves in its workspace, and the case has no workspace`,
      hint: NO_WORKSPACE_HINT,
    };
    issues.push(issue);
  }
  return issues;
}

function caseLine(evalCase: EvalCase): { line?: number; column?: number } {
  if (evalCase.line === undefined) return {};
  return evalCase.column === undefined
    ? { line: evalCase.line }
    : { line: evalCase.line, column: evalCase.column };
}
