import { describe, expect, it } from 'vitest';
import type { EvalCase } from '../eval-file/eval-case.js';
import { createEvaluatorRegistry, defaultEvaluators } from '../evaluators/evaluator-registry.js';
import { mockProviderFactory } from '../provider/mock-provider.js';
import type { ProviderFactory } from '../provider/provider-factory.js';
import { createProviderRegistry } from '../provider/provider-registry.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import { planRun } from './plan-run.js';
import { runEvaluation } from './run-evaluation.js';

// How LLM graders find their judge target, and how a run asks it.

// `cli` stands for every kind that cannot judge (a program, an agent): it needs a judge target.
const cliFactory: ProviderFactory = {
  kind: 'cli',
  create: () => {
    throw new Error('not run in these tests');
  },
};
const providerRegistry = createProviderRegistry([mockProviderFactory, cliFactory]);
const evaluatorRegistry = createEvaluatorRegistry(defaultEvaluators());

function evalCase(id: string, overrides: Partial<EvalCase> = {}): EvalCase {
  return {
    id,
    dataset: 'suite',
    filePath: '/evals/suite.yaml',
    line: 3,
    inputMessages: [{ role: 'user', content: [{ type: 'text', value: `question ${id}` }] }],
    expectedMessages: [],
    evaluators: [{ name: 'judge', type: 'llm_judge' }],
    ...overrides,
  };
}

function target(name: string, overrides: Partial<ResolvedTarget> = {}): ResolvedTarget {
  return { name, provider: 'mock', settings: {}, filePath: '/t.yaml', baseDir: '/', ...overrides };
}

const grade = (score: number) => ({
  response: JSON.stringify({ score, reasoning: `gave ${score}` }),
});
const targets = [
  target('default', { judgeTarget: 'target-judge' }),
  target('target-judge', { settings: grade(0.1) }),
  target('file-judge', { settings: grade(0.5) }),
  target('flag-judge', { settings: grade(0.9) }),
];

describe('planning the judge', () => {
  it("takes --judge-target, else execution.judge_target, else the target's judge_target", () => {
    const cases = [evalCase('from-target'), evalCase('from-file', { judgeTarget: 'file-judge' })];
    const plain = planRun({ cases, targets, providerRegistry, evaluatorRegistry });
    expect(plain.issues).toEqual([]);
    expect(plain.plan.cases.map((planned) => planned.judgeTarget?.name)).toEqual([
      'target-judge',
      'file-judge',
    ]);
    const flagged = planRun({
      cases,
      targets,
      providerRegistry,
      evaluatorRegistry,
      judgeTargetOverride: 'flag-judge',
    });
    expect(flagged.plan.cases.map((planned) => planned.judgeTarget?.name)).toEqual([
      'flag-judge',
      'flag-judge',
    ]);
  });

  it('grades a case without evaluators with a default llm_judge when a judge is configured', () => {
    const { plan, issues } = planRun({
      cases: [evalCase('bare', { evaluators: [], judgeTarget: 'file-judge' })],
      targets: [target('default'), target('file-judge')],
      providerRegistry,
      evaluatorRegistry,
    });
    expect(issues).toEqual([]);
    expect(plan.cases[0]!.evalCase.evaluators).toEqual([{ name: 'llm_judge', type: 'llm_judge' }]);
  });

  it('reports a missing judge, an unknown judge and a rubric without items before the run', () => {
    const { issues } = planRun({
      cases: [
        evalCase('no-judge'),
        evalCase('unknown-judge', { judgeTarget: 'gpt-judge' }),
        evalCase('empty-rubric', {
          judgeTarget: 'file-judge',
          evaluators: [{ name: 'rubrics', type: 'rubric' }],
          rubricItems: [],
        }),
      ],
      targets: [target('default', { provider: 'cli' }), target('file-judge')],
      targetsFile: '.agentv/targets.yaml',
      providerRegistry,
      evaluatorRegistry,
    });
    expect(issues).toEqual([
      {
        severity: 'error',
        file: '/evals/suite.yaml',
        line: 3,
        caseId: 'no-judge',
        message: 'evaluator "judge" (llm_judge) needs a judge target, and none is configured',
        hint: 'set `judge_target: <target>` on target "default", `execution.judge_target` in the eval file, or set the `judgeTarget` option',
      },
      {
        severity: 'error',
        file: '/evals/suite.yaml',
        line: 3,
        caseId: 'unknown-judge',
        message:
          'judge target "gpt-judge" (from execution.judge_target of the eval file) does not exist',
        hint: 'name one of the targets in .agentv/targets.yaml: default, file-judge',
      },
      {
        severity: 'error',
        file: '/evals/suite.yaml',
        line: 3,
        caseId: 'empty-rubric',
        message: 'evaluator "rubrics" (rubric) has no rubric items',
        hint: 'add `rubrics:` to the case (or to the evaluator), e.g. `rubrics: ["Mentions the refund amount"]`',
      },
    ]);
  });

  it('does not call a judge missing when the targets are unknown (validate without a targets file)', () => {
    const withoutTargets = planRun({
      cases: [evalCase('judged')],
      targets: [],
      providerRegistry,
      evaluatorRegistry,
      dryRun: true,
    });
    expect(withoutTargets.issues).toEqual([]);
    const dryRunWithTargets = planRun({
      cases: [evalCase('judged')],
      targets: [target('default', { provider: 'cli' })],
      providerRegistry,
      evaluatorRegistry,
      dryRun: true,
    });
    expect(dryRunWithTargets.issues.map((issue) => issue.message)).toEqual([
      'evaluator "judge" (llm_judge) needs a judge target, and none is configured',
    ]);
  });

  it('lets a target that can judge (mock, an LLM) judge its own answers when none is configured, said once', async () => {
    const selfJudging = target('default', { line: 2, settings: grade(0.7) });
    const { plan, issues } = planRun({
      cases: [evalCase('first'), evalCase('second'), evalCase('bare', { evaluators: [] })],
      targets: [selfJudging],
      providerRegistry,
      evaluatorRegistry,
    });
    expect(issues).toEqual([
      {
        severity: 'warning',
        file: '/t.yaml',
        line: 2,
        target: 'default',
        message: 'no judge target is configured: target "default" (mock) judges its own answers',
        hint: 'to have another model judge, set `judge_target: <target>` on target "default", `execution.judge_target` in the eval file, or set the `judgeTarget` option',
      },
    ]);
    expect(plan.cases.map((planned) => planned.judgeTarget?.name)).toEqual([
      'default',
      'default',
      'default',
    ]);
    // A case with no evaluators anywhere is graded by the default llm_judge, by the target itself.
    expect(plan.cases[2]!.evalCase.evaluators).toEqual([{ name: 'llm_judge', type: 'llm_judge' }]);
    const outcome = await runEvaluation({ plan, providerRegistry, evaluatorRegistry });
    expect(outcome.results.map((result) => result.score)).toEqual([0.7, 0.7, 0.7]);
  });

  it('asks the judge target during the run and keeps its grade on the result', async () => {
    const { plan, issues } = planRun({
      cases: [evalCase('graded', { judgeTarget: 'file-judge' })],
      targets,
      providerRegistry,
      evaluatorRegistry,
    });
    expect(issues).toEqual([]);
    const outcome = await runEvaluation({
      plan,
      providerRegistry,
      evaluatorRegistry,
    });
    expect(outcome.results[0]).toMatchObject({
      score: 0.5,
      passed: false,
      reasoning: 'judge: gave 0.5',
      evaluatorResults: [{ name: 'judge', type: 'llm_judge', score: 0.5, verdict: 'fail' }],
    });
  });
});
