import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isAgentvError } from '../errors/agentv-error.js';
import { ProviderError } from '../errors/provider-error.js';
import type { EvalCase } from '../eval-file/eval-case.js';
import type { EvaluationContext, Evaluator } from '../evaluators/evaluator.js';
import { createEvaluatorRegistry, defaultEvaluators } from '../evaluators/evaluator-registry.js';
import { mockProviderFactory } from '../provider/mock-provider.js';
import type { Provider } from '../provider/provider.js';
import { createProviderRegistry } from '../provider/provider-registry.js';
import type { ProviderRequest } from '../provider/provider-request.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import type { WorkspaceConfig } from '../workspace/workspace-config.js';
import { WorkspaceCaseError, WorkspaceSetupError } from '../workspace/workspace-errors.js';
import type {
  WorkspaceCaseInfo,
  WorkspaceLease,
  WorkspaceManager,
} from '../workspace/workspace-manager.js';
import { planRun } from './plan-run.js';
import { runEvaluation } from './run-evaluation.js';
import type { WorkspaceChangesRecord } from './run-options.js';

const scratch = mkdtempSync(join(tmpdir(), 'agentv-run-workspaces-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A manager over real folders, standing in for the engine (tested on its own):
 * each lease is a new empty folder; `changes` lists the files in it.
 */
function folderManager(
  options: {
    failEach?: (info: WorkspaceCaseInfo, acquired: number) => boolean;
    failAll?: boolean;
  } = {},
) {
  const log: string[] = [];
  const live = new Set<string>();
  const kept: string[] = [];
  let count = 0;
  const manager: WorkspaceManager & { log: string[]; live: Set<string> } = {
    log,
    live,
    async acquire(_config, info) {
      if (options.failAll) {
        throw new WorkspaceSetupError('before_all hook `exit 3` failed with exit code 3: boom', {
          hint: 'fix the hook',
        });
      }
      if (options.failEach?.(info, count)) {
        throw new WorkspaceCaseError(`before_each hook \`false\` failed for case "${info.evalId}"`);
      }
      const dir = mkdtempSync(join(scratch, `ws-${++count}-`));
      live.add(dir);
      log.push(`acquire ${info.evalId} ${info.target}${info.repeat ? ` r${info.repeat}` : ''}`);
      const lease: WorkspaceLease = {
        path: dir,
        async changes() {
          log.push(`changes ${info.evalId}`);
          const files = readdirSync(dir).sort();
          return {
            files: files.map((file) => ({
              path: file,
              status: 'added' as const,
              insertions: 1,
              deletions: 0,
            })),
            insertions: files.length,
            deletions: 0,
            diff: files.map((file) => `+++ b/${file}\n`).join(''),
          };
        },
        async release({ keep }) {
          log.push(`release ${info.evalId} keep=${keep}`);
          live.delete(dir);
          if (keep) {
            kept.push(dir);
            return { keptAt: dir };
          }
          rmSync(dir, { recursive: true, force: true });
          return {};
        },
      };
      return lease;
    },
    async close() {
      log.push('close');
    },
    kept: () => kept,
  };
  return manager;
}

const config: WorkspaceConfig = {
  isolation: 'per_case',
  mode: 'temp',
  hooks: {},
  baseDir: scratch,
  key: 'k',
};

function evalCase(id: string, overrides: Partial<EvalCase> = {}): EvalCase {
  return {
    id,
    dataset: 'suite',
    filePath: '/evals/suite.yaml',
    inputMessages: [{ role: 'user', content: [{ type: 'text', value: `question ${id}` }] }],
    expectedMessages: [],
    evaluators: [{ name: 'says-ok', type: 'contains', value: 'ok' }],
    workspace: config,
    ...overrides,
  };
}

function target(name: string, overrides: Partial<ResolvedTarget> = {}): ResolvedTarget {
  return { name, provider: 'mock', settings: {}, filePath: '/t.yaml', baseDir: '/', ...overrides };
}

/** An agent that writes `<id>.txt` in its workspace and answers per `answer`. */
function writingAgent(answer: (request: ProviderRequest) => string): Provider & {
  requests: ProviderRequest[];
} {
  const requests: ProviderRequest[] = [];
  return {
    specificationVersion: 'v1',
    id: 'writer',
    kind: 'writer',
    targetName: 'default',
    requests,
    async invoke(request) {
      requests.push(request);
      if (request.workspace)
        writeFileSync(join(request.workspace, `${request.evalCaseId}.txt`), 'x');
      return { text: answer(request) };
    },
  };
}

/** A grader that records the workspace it saw. */
const seen: Record<string, EvaluationContext['workspace']> = {};
const recorder: Evaluator = {
  type: 'sees_workspace',
  validate: () => [],
  async evaluate(_config, context) {
    seen[context.evalCase.id] = context.workspace;
    return { score: 1, hits: [], misses: [] };
  },
};

async function run(
  cases: EvalCase[],
  provider: Provider,
  extra: Partial<Parameters<typeof runEvaluation>[0]> = {},
) {
  const providerRegistry = createProviderRegistry([mockProviderFactory]);
  const evaluatorRegistry = createEvaluatorRegistry([...defaultEvaluators(), recorder]);
  const { plan, issues } = planRun({
    cases,
    targets: [target('default'), target('other')],
    providerRegistry,
    evaluatorRegistry,
  });
  expect(issues).toEqual([]);
  return runEvaluation({
    plan,
    providerRegistry,
    evaluatorRegistry,
    createProvider: () => provider,
    retryPolicy: { baseDelayMs: 1, maxDelayMs: 2 },
    workers: 1,
    ...extra,
  });
}

describe('runEvaluation with workspaces', () => {
  it('runs the agent in the workspace, shows graders what changed, and keeps failed ones', async () => {
    const manager = folderManager();
    const kept: string[] = [];
    const saved: WorkspaceChangesRecord[] = [];
    const agent = writingAgent((request) => (request.evalCaseId === 'bad' ? 'no' : 'ok'));
    const { results } = await run(
      [
        evalCase('good', {
          evaluators: [
            { name: 'says-ok', type: 'contains', value: 'ok' },
            { name: 'saw', type: 'sees_workspace' },
          ],
        }),
        evalCase('bad'),
        evalCase('plain', { workspace: undefined }),
      ],
      agent,
      {
        workspaces: manager,
        onWorkspaceKept: (path) => kept.push(path),
        onWorkspaceChanges: (record) => {
          saved.push(record);
        },
      },
    );
    const byId = Object.fromEntries(results.map((result) => [result.evalId, result]));
    expect(byId.good?.workspace).toEqual({ filesChanged: 1, insertions: 1, deletions: 0 });
    expect(seen.good?.changes.files.map((file) => file.path)).toEqual(['good.txt']);
    expect(byId.bad?.passed).toBe(false);
    expect(byId.bad?.workspace?.keptAt).toBeDefined();
    expect(kept).toEqual([byId.bad?.workspace?.keptAt]);
    expect(existsSync(kept[0]!)).toBe(true);
    expect(byId.plain?.workspace).toBeUndefined();
    expect(agent.requests.find((r) => r.evalCaseId === 'plain')?.workspace).toBeUndefined();
    expect(agent.requests.find((r) => r.evalCaseId === 'good')?.workspace).toBe(seen.good?.path);
    expect(saved.map((record) => record.result.evalId).sort()).toEqual(['bad', 'good']);
    expect(manager.log).toEqual([
      'acquire good default',
      'changes good',
      'release good keep=false',
      'acquire bad default',
      'changes bad',
      'release bad keep=true',
    ]);
    // A manager given to the run is the caller's to close.
    expect(manager.live.size).toBe(0);
  });

  it('keeps every workspace with keepWorkspaces', async () => {
    const manager = folderManager();
    const { results } = await run(
      [evalCase('a')],
      writingAgent(() => 'ok'),
      {
        workspaces: manager,
        keepWorkspaces: true,
      },
    );
    expect(results[0]?.passed).toBe(true);
    expect(results[0]?.workspace?.keptAt).toBeDefined();
  });

  it('gives a retry a fresh workspace', async () => {
    const manager = folderManager();
    let calls = 0;
    const agent: Provider = {
      ...writingAgent(() => 'ok'),
      async invoke(request) {
        writeFileSync(join(request.workspace!, `attempt-${request.attempt}.txt`), 'x');
        if (++calls === 1) throw new ProviderError('flaky', { retryable: true });
        return { text: 'ok' };
      },
    };
    const { results } = await run(
      [evalCase('a', { evaluators: [{ name: 'saw', type: 'sees_workspace' }] })],
      agent,
      { workspaces: manager },
    );
    expect(results[0]).toMatchObject({ attempts: 2, passed: true });
    expect(seen.a?.changes.files.map((file) => file.path)).toEqual(['attempt-1.txt']);
    expect(manager.log).toEqual([
      'acquire a default',
      'release a keep=false',
      'acquire a default',
      'changes a',
      'release a keep=false',
    ]);
  });

  it('makes a before_each that fails before a retry the case error, releasing once', async () => {
    const manager = folderManager({ failEach: (_info, acquired) => acquired === 1 });
    const agent: Provider = {
      ...writingAgent(() => 'ok'),
      async invoke() {
        throw new ProviderError('flaky', { retryable: true });
      },
    };
    const { results } = await run([evalCase('a')], agent, { workspaces: manager });
    expect(results[0]?.error).toBe('before_each hook `false` failed for case "a"');
    expect(manager.log).toEqual(['acquire a default', 'release a keep=false']);
  });

  it('makes a failed before_each the case error, naming the hook', async () => {
    const manager = folderManager({ failEach: (info) => info.evalId === 'b' });
    const agent = writingAgent(() => 'ok');
    const { results } = await run([evalCase('a'), evalCase('b')], agent, { workspaces: manager });
    const b = results.find((result) => result.evalId === 'b');
    expect(b?.error).toBe('before_each hook `false` failed for case "b"');
    expect(agent.requests.map((request) => request.evalCaseId)).toEqual(['a']);
  });

  it('stops the run when a workspace cannot be set up', async () => {
    const manager = folderManager({ failAll: true });
    const agent = writingAgent(() => 'ok');
    const error = await run([evalCase('a'), evalCase('b'), evalCase('c')], agent, {
      workspaces: manager,
      workers: 2,
    }).catch((caught: unknown) => caught);
    expect(isAgentvError(error, 'workspace-setup')).toBe(true);
    expect((error as Error).message).toContain('before_all hook');
    expect(agent.requests).toEqual([]);
  });

  it('gives each (case, target) and each repeat its own workspace', async () => {
    const manager = folderManager();
    await run(
      [evalCase('a', { target: undefined })],
      writingAgent(() => 'ok'),
      {
        workspaces: manager,
        repeat: 2,
      },
    );
    const providerRegistry = createProviderRegistry([mockProviderFactory]);
    const evaluatorRegistry = createEvaluatorRegistry(defaultEvaluators());
    const { plan } = planRun({
      cases: [evalCase('a')],
      targets: [target('default'), target('other')],
      targetOverride: ['default', 'other'],
      providerRegistry,
      evaluatorRegistry,
    });
    await runEvaluation({
      plan,
      providerRegistry,
      evaluatorRegistry,
      createProvider: () => writingAgent(() => 'ok'),
      workspaces: manager,
      workers: 1,
    });
    expect(manager.log.filter((line) => line.startsWith('acquire'))).toEqual([
      'acquire a default r2',
      'acquire a default',
      'acquire a other',
    ]);
  });

  it('refuses per_case workspaces on a target that answers in batches', async () => {
    const agent: Provider = {
      ...writingAgent(() => 'ok'),
      supportsBatch: true,
      invokeBatch: async (requests) => requests.map(() => ({ text: 'ok' })),
    };
    const providerRegistry = createProviderRegistry([mockProviderFactory]);
    const evaluatorRegistry = createEvaluatorRegistry(defaultEvaluators());
    const { plan } = planRun({
      cases: [evalCase('a')],
      targets: [target('default', { providerBatching: true })],
      providerRegistry,
      evaluatorRegistry,
    });
    const manager = folderManager();
    const error = await runEvaluation({
      plan,
      providerRegistry,
      evaluatorRegistry,
      createProvider: () => agent,
      workspaces: manager,
    }).catch((caught: unknown) => caught);
    expect((error as Error).message).toContain('isolation: per_case');
    expect(manager.log).toEqual([]);

    // Shared: every case of the batch gets the workspace, graded one by one.
    const shared = { ...config, isolation: 'shared' as const };
    const { plan: sharedPlan } = planRun({
      cases: [evalCase('a', { workspace: shared }), evalCase('b', { workspace: shared })],
      targets: [target('default', { providerBatching: true })],
      providerRegistry,
      evaluatorRegistry,
    });
    const outcome = await runEvaluation({
      plan: sharedPlan,
      providerRegistry,
      evaluatorRegistry,
      createProvider: () => agent,
      workspaces: manager,
    });
    expect(outcome.results.map((result) => result.passed)).toEqual([true, true]);
    expect(outcome.results.every((result) => result.workspace !== undefined)).toBe(true);
  });
});
