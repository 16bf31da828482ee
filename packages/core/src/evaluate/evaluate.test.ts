import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type InvalidInputError, isInvalidInputError } from '../errors/invalid-input-error.js';
import { isUsageError } from '../errors/usage-error.js';
import { loadEvalFile } from '../eval-file/load-eval-file.js';
import type { EvaluationResult } from '../orchestrator/evaluation-result.js';
import { mockProviderFactory } from '../provider/mock-provider.js';
import { createProviderRegistry } from '../provider/provider-registry.js';
import { computeRunStatistics } from '../statistics/run-statistics.js';
import { evaluate } from './evaluate.js';
import type { EvaluateProgressEvent } from './evaluate-options.js';

const SUITE = `execution:
  evaluators:
    - { name: says-42, type: contains, value: "42" }
evalcases:
  - id: first
    input_messages: [{ role: user, content: "What is six times seven?" }]
  - id: second
    input_messages: [{ role: user, content: "And the answer to everything?" }]
`;

let dir: string;
const providers = createProviderRegistry([mockProviderFactory]);

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agentv-evaluate-'));
  await mkdir(path.join(dir, '.agentv'));
  await mkdir(path.join(dir, 'evals'));
  await writeFile(
    path.join(dir, '.agentv', 'targets.yaml'),
    `targets:
  - { name: default, provider: mock, response: "It is 42." }
  - { name: wrong, provider: mock, response: "No idea." }
`,
  );
  await writeFile(path.join(dir, 'evals', 'suite.yaml'), SUITE);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('evaluate', () => {
  it('runs an eval file given by path and reports each result and the progress', async () => {
    const seen: EvaluationResult[] = [];
    const events: EvaluateProgressEvent[] = [];
    const outcome = await evaluate({
      evalFiles: ['evals/suite.yaml'],
      providers,
      cwd: dir,
      onResult: (result) => {
        seen.push(result);
      },
      onProgress: (event) => events.push(event),
    });
    expect(outcome.interrupted).toBe(false);
    expect(outcome.results.map((result) => [result.evalId, result.passed]).sort()).toEqual([
      ['first', true],
      ['second', true],
    ]);
    expect(seen).toHaveLength(2);
    expect(outcome.summary).toMatchObject({ total: 2, passed: 2, failed: 0, passRate: 1, mean: 1 });
    expect(outcome.summary.targets.map((target) => target.target)).toEqual(['default']);
    expect(events.filter((event) => event.type === 'case-started')).toHaveLength(2);
    expect(
      events.filter((event) => event.type === 'case-finished').map((event) => event.done),
    ).toEqual([1, 2]);
    expect(events.at(-1)).toMatchObject({ type: 'case-finished', done: 2, total: 2 });
  });

  it("keeps no result with retainResults 'none', only the summary of every one", async () => {
    const seen: EvaluationResult[] = [];
    const outcome = await evaluate({
      evalFiles: ['evals/suite.yaml'],
      providers,
      cwd: dir,
      targets: ['default', 'wrong'],
      retainResults: 'none',
      onResult: (result) => {
        seen.push(result);
      },
    });
    expect(outcome.results).toEqual([]);
    expect(seen).toHaveLength(4);
    expect(outcome.summary).toEqual(computeRunStatistics(seen));
    expect(outcome.summary).toMatchObject({ total: 4, passed: 2, failed: 2, passRate: 0.5 });
  });

  it('runs parsed cases against several targets given in code', async () => {
    const loaded = await loadEvalFile(path.join(dir, 'evals', 'suite.yaml'), { cwd: dir });
    const outcome = await evaluate({
      cases: loaded.value!.cases,
      providers,
      cwd: dir,
      targetDefinitions: [
        { name: 'right', provider: 'mock', response: 'It is 42.' },
        { name: 'vague', provider: 'mock', response: 'Hard to say.' },
      ],
      targets: ['right', 'vague'],
      workers: 1,
    });
    const byTarget = outcome.results
      .map((result) => `${result.target}/${result.evalId}:${result.passed}`)
      .sort();
    expect(byTarget).toEqual([
      'right/first:true',
      'right/second:true',
      'vague/first:false',
      'vague/second:false',
    ]);
    expect(
      outcome.summary.targets.map((target) => [target.target, target.passRate, target.mean]),
    ).toEqual([
      ['right', 1, 1],
      ['vague', 0, 0],
    ]);
    expect(outcome.summary.passRate).toBe(0.5);
  });

  it('with evalFiles, targetDefinitions replace the targets file found near them', async () => {
    // A targets file no run could use: loading it would fail the run.
    await writeFile(
      path.join(dir, '.agentv', 'targets.yaml'),
      'targets:\n  - just text\n  - { name: default, provider: nowhere }\n',
    );
    const broken = await evaluate({ evalFiles: ['evals/suite.yaml'], providers, cwd: dir }).catch(
      (caught: unknown) => caught,
    );
    expect(isInvalidInputError(broken)).toBe(true);

    const warnings: string[] = [];
    const outcome = await evaluate({
      evalFiles: ['evals/suite.yaml'],
      providers,
      cwd: dir,
      targetDefinitions: [{ name: 'default', provider: 'mock', response: 'In code: 42.' }],
      onWarning: (message) => warnings.push(message),
    });
    expect(warnings).toEqual([]);
    expect(outcome.results.map((result) => [result.target, result.candidateAnswer])).toEqual([
      ['default', 'In code: 42.'],
      ['default', 'In code: 42.'],
    ]);
  });

  it("with evalFiles and targetDefinitions, still throws the eval files' own issues", async () => {
    await writeFile(
      path.join(dir, 'evals', 'suite.yaml'),
      `${SUITE}  - id: third\n    input_messages: 12\n`,
    );
    const error = await evaluate({
      evalFiles: ['evals/suite.yaml'],
      providers,
      cwd: dir,
      targetDefinitions: [{ name: 'default', provider: 'mock', response: 'It is 42.' }],
    }).catch((caught: unknown) => caught);
    expect(isInvalidInputError(error)).toBe(true);
    expect((error as InvalidInputError).issues).toEqual([
      expect.objectContaining({
        file: path.join('evals', 'suite.yaml'),
        caseId: 'third',
        message: expect.stringContaining('input_messages'),
      }),
    ]);
  });

  it('reports an inline target named like a target given in code, naming both places', async () => {
    await writeFile(
      path.join(dir, 'evals', 'suite.yaml'),
      `targets:\n  - { name: default, provider: mock, response: "Inline." }\n${SUITE}`,
    );
    const error = await evaluate({
      evalFiles: ['evals/suite.yaml'],
      providers,
      cwd: dir,
      targetDefinitions: [{ name: 'default', provider: 'mock', response: 'It is 42.' }],
    }).catch((caught: unknown) => caught);
    expect(isInvalidInputError(error)).toBe(true);
    expect((error as InvalidInputError).issues).toEqual([
      expect.objectContaining({
        file: path.join('evals', 'suite.yaml'),
        target: 'default',
        message: 'defined twice: inline in evals/suite.yaml:2:7 and in targetDefinitions:2:5',
      }),
    ]);
  });

  it('takes execution.targets from the eval file, and a target option wins over it', async () => {
    await writeFile(
      path.join(dir, 'evals', 'suite.yaml'),
      SUITE.replace('execution:\n', 'execution:\n  targets: [default, wrong]\n'),
    );
    const both = await evaluate({ evalFiles: ['evals/suite.yaml'], providers, cwd: dir });
    expect(both.results.map((result) => result.target).sort()).toEqual([
      'default',
      'default',
      'wrong',
      'wrong',
    ]);
    const one = await evaluate({
      evalFiles: ['evals/suite.yaml'],
      providers,
      cwd: dir,
      target: 'wrong',
    });
    expect(one.results.map((result) => result.target)).toEqual(['wrong', 'wrong']);
  });

  it("lets a case's own execution.target replace the file's execution.targets", async () => {
    await writeFile(
      path.join(dir, 'evals', 'suite.yaml'),
      SUITE.replace('execution:\n', 'execution:\n  targets: [default, wrong]\n').replace(
        '  - id: second\n',
        '  - id: second\n    execution: { target: wrong }\n',
      ),
    );
    const outcome = await evaluate({ evalFiles: ['evals/suite.yaml'], providers, cwd: dir });
    expect(outcome.results.map((result) => `${result.evalId}@${result.target}`).sort()).toEqual([
      'first@default',
      'first@wrong',
      'second@wrong',
    ]);
  });

  it('throws the located issues of bad input before running anything', async () => {
    let started = 0;
    const error = await evaluate({
      evalFiles: ['evals/suite.yaml'],
      providers,
      cwd: dir,
      targets: ['default', 'missing'],
      onProgress: () => started++,
    }).catch((caught: unknown) => caught);
    expect(isInvalidInputError(error)).toBe(true);
    const issue = (error as InvalidInputError).issues[0]!;
    // The library names its own option, not the CLI's flag.
    expect(issue).toMatchObject({ file: 'targets', message: 'unknown target "missing"' });
    expect(issue.hint).toContain('default, wrong');
    expect(started).toBe(0);
  });

  it('refuses a run with no case to run', async () => {
    const error = await evaluate({ cases: [], providers, cwd: dir }).catch(
      (caught: unknown) => caught,
    );
    expect(isUsageError(error)).toBe(true);
    expect(error).toMatchObject({ message: 'the eval files contain no cases to run' });
  });

  it.each([
    [{ workers: 0 }, 'evaluate() option workers must be an integer >= 1, got 0'],
    [{ workers: 1.5 }, 'evaluate() option workers must be an integer >= 1, got 1.5'],
    [{ maxRetries: -1 }, 'evaluate() option maxRetries must be an integer >= 0, got -1'],
    [{ threshold: 2 }, 'evaluate() option threshold must be a number between 0 and 1, got 2'],
  ])('refuses %o with a usage error before running anything', async (option, message) => {
    let started = 0;
    const error = await evaluate({
      evalFiles: ['evals/suite.yaml'],
      providers,
      cwd: dir,
      onProgress: () => started++,
      ...option,
    }).catch((caught: unknown) => caught);
    expect(isUsageError(error)).toBe(true);
    expect(error).toMatchObject({ message, hint: expect.stringContaining('leave it out') });
    expect(started).toBe(0);
  });

  it('refuses options that give neither or both of evalFiles and cases', async () => {
    const error = await evaluate({ providers, cwd: dir }).catch((caught: unknown) => caught);
    expect(isUsageError(error)).toBe(true);
  });
});
