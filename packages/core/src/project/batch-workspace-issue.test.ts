import { describe, expect, it } from 'vitest';
import type { EvalCase } from '../eval-file/eval-case.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import { resolveWorkspaceConfig } from '../workspace/resolve-workspace-config.js';
import { batchWorkspaceIssue } from './batch-workspace-issue.js';

const target = (providerBatching?: boolean): ResolvedTarget => ({
  name: 'agent',
  provider: 'cli',
  settings: {},
  ...(providerBatching === undefined ? {} : { providerBatching }),
  filePath: '/p/.agentv/targets.yaml',
  baseDir: '/p',
});

const evalCase = (isolation?: 'per_case' | 'shared'): EvalCase => ({
  id: 'fix-bug',
  dataset: 'suite',
  filePath: '/p/evals/suite.yaml',
  line: 7,
  column: 5,
  inputMessages: [],
  expectedMessages: [],
  evaluators: [],
  ...(isolation === undefined
    ? {}
    : { workspace: resolveWorkspaceConfig({ baseDir: '/p/evals', isolation }) }),
});

describe('batchWorkspaceIssue', () => {
  it('refuses a per-case workspace on a batch target, at the case, with the way out', () => {
    expect(batchWorkspaceIssue(evalCase('per_case'), target(true))).toEqual({
      severity: 'error',
      file: '/p/evals/suite.yaml',
      line: 7,
      column: 5,
      caseId: 'fix-bug',
      message:
        'target "agent" answers cases in batches (provider_batching: true), and a batch cannot run per-case workspaces',
      hint: 'set `isolation: shared` in the workspace block (one workspace for every case, which the batch works in), or run target "agent" case by case without `provider_batching`',
    });
  });

  it('accepts a shared workspace, no workspace, and targets that answer case by case', () => {
    expect(batchWorkspaceIssue(evalCase('shared'), target(true))).toBeUndefined();
    expect(batchWorkspaceIssue(evalCase(), target(true))).toBeUndefined();
    expect(batchWorkspaceIssue(evalCase('per_case'), target(false))).toBeUndefined();
    expect(batchWorkspaceIssue(evalCase('per_case'), target())).toBeUndefined();
  });
});
