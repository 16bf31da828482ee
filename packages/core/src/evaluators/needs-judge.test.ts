import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// Everything through the public entries, as a library user registers a grader of their own.
import {
  createEvaluatorRegistry,
  createProviderRegistry,
  defaultEvaluators,
  type EvaluationContext,
  type Evaluator,
  evaluate,
  isInvalidInputError,
} from '../index.js';
import { mockProviderFactory } from '../test/index.js';

let dir: string;
// The agent target stands for one that cannot judge itself (a `cli` agent): only a configured judge grades.
const providers = createProviderRegistry([{ ...mockProviderFactory, canJudge: false }]);

/** A project whose one case is graded by `house_style`; `judge` adds `execution.judge_target`. */
async function writeProject(options: { judge: boolean; grader?: string }): Promise<void> {
  await writeFile(
    path.join(dir, '.agentv', 'targets.yaml'),
    `targets:
  - { name: default, provider: mock, response: "Refunds take 30 days." }
  - { name: style-judge, provider: mock, response: "APPROVED" }
`,
  );
  await writeFile(
    path.join(dir, 'evals', 'suite.yaml'),
    `execution:
${options.judge ? '  judge_target: style-judge\n' : ''}  evaluators:
    - ${options.grader ?? '{ name: house-style, type: house_style }'}
evalcases:
  - id: refund
    input_messages: [{ role: user, content: "How long do refunds take?" }]
`,
  );
}

/** `house_style` asks the judge whether the answer is in the house style, when it has one. */
function houseStyle(needsJudge: Evaluator['needsJudge'], seen: EvaluationContext[]): Evaluator {
  return {
    type: 'house_style',
    options: ['strict'],
    ...(needsJudge === undefined ? {} : { needsJudge }),
    async evaluate(_config, context) {
      seen.push(context);
      if (!context.judge) return { score: 0, hits: [], misses: ['no judge to ask'] };
      const reply = await context.judge.ask({
        question: `Is this in the house style? ${context.candidateAnswer}`,
        evalCaseId: context.evalCase.id,
        attempt: 0,
      });
      const approved = reply.text === 'APPROVED';
      return {
        score: approved ? 1 : 0,
        hits: approved ? ['house style'] : [],
        misses: approved ? [] : ['not the house style'],
      };
    },
  };
}

function run(grader: Evaluator) {
  return evaluate({
    evalFiles: ['evals/suite.yaml'],
    providers,
    evaluators: createEvaluatorRegistry([...defaultEvaluators(), grader]),
    cwd: dir,
  });
}

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agentv-needs-judge-'));
  await mkdir(path.join(dir, '.agentv'));
  await mkdir(path.join(dir, 'evals'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a grader registered by a library user', () => {
  it('gets the judge target as context.judge when it declares needsJudge', async () => {
    await writeProject({ judge: true });
    const seen: EvaluationContext[] = [];
    const outcome = await run(houseStyle(true, seen));
    expect(seen.map((context) => context.judge?.targetName)).toEqual(['style-judge']);
    expect(outcome.results).toHaveLength(1);
    expect(outcome.results[0]).toMatchObject({ evalId: 'refund', passed: true, score: 1 });
    expect(outcome.results[0]?.evaluatorResults[0]).toMatchObject({
      name: 'house-style',
      hits: ['house style'],
    });
  });

  it('gets no judge without needsJudge, even when the eval file names a judge target', async () => {
    await writeProject({ judge: true });
    const seen: EvaluationContext[] = [];
    const outcome = await run(houseStyle(undefined, seen));
    expect(seen).toHaveLength(1);
    expect(seen[0]?.judge).toBeUndefined();
    expect(outcome.results[0]).toMatchObject({ passed: false, score: 0 });
  });

  it('is refused before the run when it needs a judge and no judge target is configured', async () => {
    await writeProject({ judge: false });
    const seen: EvaluationContext[] = [];
    const error = await run(houseStyle(true, seen)).catch((caught: unknown) => caught);
    expect(isInvalidInputError(error)).toBe(true);
    expect((error as Error).message).toContain(
      'evaluator "house-style" (house_style) needs a judge target, and none is configured',
    );
    expect(seen).toEqual([]);
  });

  it('asks for a judge only for the configs its needsJudge function picks', async () => {
    const seen: EvaluationContext[] = [];
    const grader = houseStyle((config) => config.strict === true, seen);
    await writeProject({ judge: false, grader: '{ name: house-style, type: house_style }' });
    const lenient = await run(grader);
    expect(lenient.results[0]).toMatchObject({ passed: false });
    await writeProject({
      judge: true,
      grader: '{ name: house-style, type: house_style, strict: true }',
    });
    const strict = await run(grader);
    expect(strict.results[0]).toMatchObject({ passed: true });
    expect(seen.map((context) => context.judge?.targetName)).toEqual([undefined, 'style-judge']);
  });

  it('inside a composite makes the composite ask for the judge target too', async () => {
    await writeProject({
      judge: true,
      grader:
        '{ name: checks, type: composite, evaluators: [{ name: house-style, type: house_style }] }',
    });
    const seen: EvaluationContext[] = [];
    const outcome = await run(houseStyle(true, seen));
    expect(seen.map((context) => context.judge?.targetName)).toEqual(['style-judge']);
    expect(outcome.results[0]).toMatchObject({ passed: true, score: 1 });
  });
});
