import { describe, expect, it } from 'vitest';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import type { EvaluationScore, Evaluator } from './evaluator.js';
import { EvaluatorError } from './evaluator-error.js';
import { createEvaluatorRegistry, defaultEvaluators } from './evaluator-registry.js';
import { type CaseGrade, gradeCase } from './grade-case.js';
import { makeContext } from './test-support/make-context.js';

/** Returns the score in its config's `score` option; throws when `fail` is set. */
const fixedEvaluator: Evaluator = {
  type: 'fixed',
  async evaluate(config): Promise<EvaluationScore> {
    if (typeof config.fail === 'string') throw new EvaluatorError(config.fail);
    return {
      score: config.score as number,
      hits: [`${config.name} hit`],
      misses: [`${config.name} miss`],
      ...(typeof config.reasoning === 'string' ? { reasoning: config.reasoning } : {}),
    };
  },
};

const registry = createEvaluatorRegistry([...defaultEvaluators(), fixedEvaluator]);
const context = makeContext();

function fixed(
  name: string,
  score: number,
  options: Partial<EvaluatorConfig> = {},
): EvaluatorConfig {
  return { name, type: 'fixed', score, ...options };
}

describe('gradeCase', () => {
  it('inverts a grader with negate: true: score 1 - s, verdict from it, hits and misses swapped', async () => {
    const mustNot = { name: 'no-refund', type: 'contains', value: 'refund', negate: true };
    const said = await gradeCase(
      [mustNot],
      makeContext({ candidateAnswer: 'Your refund is on its way.' }),
      registry,
    );
    expect(said.passed).toBe(false);
    expect(said.evaluatorResults[0]).toMatchObject({
      score: 0,
      verdict: 'fail',
      negated: true,
      hits: [],
      misses: [expect.stringContaining('refund')],
    });
    const quiet = await gradeCase(
      [mustNot],
      makeContext({ candidateAnswer: 'We looked into it.' }),
      registry,
    );
    expect(quiet.passed).toBe(true);
    expect(quiet.evaluatorResults[0]).toMatchObject({ score: 1, verdict: 'pass', misses: [] });
    expect(quiet.evaluatorResults[0]!.hits).toHaveLength(1);

    // A member of a composite, and a partial score.
    const composite = await gradeCase(
      [
        {
          name: 'both',
          type: 'composite',
          evaluators: [fixed('mostly', 0.75, { negate: true }), fixed('fine', 1)],
        },
      ],
      context,
      registry,
    );
    expect(composite.evaluatorResults[0]!.members?.[0]).toMatchObject({
      score: 0.25,
      verdict: 'fail',
      negated: true,
      hits: ['mostly miss'],
      misses: ['mostly hit'],
    });
    expect(composite.evaluatorResults[0]!.score).toBeCloseTo(0.625);
  });

  it('clamps a score outside 0–1 and warns, naming the grader, members of a composite included', async () => {
    const warnings: string[] = [];
    const warn = (_case: unknown, grader: string, message: string) =>
      warnings.push(`${grader} ${message}`);
    const grade = await gradeCase(
      [
        fixed('ten-scale', 7),
        {
          name: 'both',
          type: 'composite',
          evaluators: [fixed('negative', -0.5), fixed('fine', 1)],
          aggregator: { type: 'weighted_average' },
        },
      ],
      { ...context, warn },
      registry,
    );
    expect(grade.evaluatorResults.map((result) => result.score)).toEqual([1, 0.5]);
    expect(warnings).toEqual([
      '"ten-scale" (fixed) returned score 7, outside 0–1; it counts as 1',
      '"negative" (fixed) returned score -0.5, outside 0–1; it counts as 0',
    ]);
  });

  it('grades with real evaluators and passes when every verdict is pass', async () => {
    const grade = await gradeCase(
      [
        { name: 'mentions-42', type: 'contains', value: '42' },
        { name: 'sentence', type: 'regex', pattern: '\\.$' },
      ],
      context,
      registry,
    );
    expect(grade).toEqual({
      score: 1,
      passed: true,
      hits: ['Answer contains "42"', 'Answer matches /\\.$/ at "."'],
      misses: [],
      reasoning: '',
      evaluatorResults: [
        {
          name: 'mentions-42',
          type: 'contains',
          score: 1,
          weight: 1,
          verdict: 'pass',
          hits: ['Answer contains "42"'],
          misses: [],
        },
        {
          name: 'sentence',
          type: 'regex',
          score: 1,
          weight: 1,
          verdict: 'pass',
          hits: ['Answer matches /\\.$/ at "."'],
          misses: [],
        },
      ],
    });
  });

  it('takes the weighted mean, ignoring weight 0', async () => {
    const grade = await gradeCase(
      [fixed('a', 1, { weight: 3 }), fixed('b', 0.2), fixed('info', 0, { weight: 0 })],
      context,
      registry,
    );
    expect(grade.score).toBeCloseTo(0.8);
    expect(grade.evaluatorResults.map((result) => result.verdict)).toEqual([
      'pass',
      'fail',
      'fail',
    ]);
    // b fails and is weighted; the weight-0 evaluator does not count.
    expect(grade.passed).toBe(false);
    expect(grade.hits).toEqual(['a hit', 'b hit', 'info hit']);
  });

  it('passes on the threshold instead of verdicts when one is set', async () => {
    const configs = [fixed('a', 1), fixed('b', 0.4)];
    expect((await gradeCase(configs, context, registry, { threshold: 0.7 })).passed).toBe(true);
    expect((await gradeCase(configs, context, registry, { threshold: 0.75 })).passed).toBe(false);
    const withCaseThreshold = makeContext({ evalCase: { threshold: 0.5 } });
    expect((await gradeCase(configs, withCaseThreshold, registry)).passed).toBe(true);
  });

  it('fails the case with score 0 when a required grader misses its bar, saying which and why', async () => {
    const threshold = { threshold: 0.7 };
    // Under a threshold, `required: true` is held to it.
    const missed = await gradeCase(
      [fixed('a', 1), fixed('b', 0.6, { required: true })],
      context,
      registry,
      threshold,
    );
    expect(missed).toMatchObject({ passed: false, score: 0 });
    expect(missed.misses).toContain(
      `required grader "b" (fixed) scored 0.60, below the case's threshold 0.7, so the case fails with score 0`,
    );
    expect(missed.evaluatorResults[1]).toMatchObject({ score: 0.6, failsCase: true });
    const held = await gradeCase(
      [fixed('a', 0.4), fixed('b', 0.75, { required: true })],
      context,
      registry,
      { threshold: 0.5 },
    );
    expect(held).toMatchObject({ passed: true, score: 0.575 });

    // A number is its own bar, whatever the threshold.
    const numeric = await gradeCase(
      [fixed('a', 1), fixed('b', 0.5, { required: 0.6 })],
      context,
      registry,
      threshold,
    );
    expect(numeric).toMatchObject({ passed: false, score: 0 });
    expect(numeric.misses[1]).toContain('below its bar 0.6');

    // Without a threshold `true` needs the grader's own pass, and a number is its pass mark.
    const own = await gradeCase([fixed('a', 0.7, { required: true })], context, registry);
    expect(own).toMatchObject({ passed: false, score: 0 });
    expect(own.misses[0]).toContain('did not pass (score 0.70, verdict borderline)');
    const mark = await gradeCase(
      [fixed('a', 1), fixed('b', 0.65, { required: 0.6 })],
      context,
      registry,
    );
    expect(mark).toMatchObject({ passed: true, score: 0.825 });

    // `required: false` changes nothing.
    const optional = await gradeCase(
      [fixed('a', 1), fixed('b', 0.5, { required: false })],
      context,
      registry,
      threshold,
    );
    expect(optional).toMatchObject({ passed: true, score: 0.75 });
  });

  it('accepts a score a hair below the pass mark from floating-point sums', async () => {
    expect(await gradeCase([fixed('a', 0.7 + 0.1)], context, registry)).toMatchObject({
      passed: true,
    });
  });

  it('clamps scores to [0, 1]', async () => {
    const grade = await gradeCase([fixed('high', 7), fixed('low', -2)], context, registry);
    expect(grade.evaluatorResults.map((result) => result.score)).toEqual([1, 0]);
    expect(grade.score).toBe(0.5);
  });

  it('turns a throwing evaluator into an error result and a case error', async () => {
    const grade = await gradeCase(
      [
        fixed('ok', 1),
        fixed('judge', 1, { fail: 'script crashed' }),
        fixed('other', 0, { fail: 'bad' }),
      ],
      context,
      registry,
    );
    expect(grade.error).toBe(
      'evaluator "judge" (fixed) failed: script crashed; evaluator "other" (fixed) failed: bad',
    );
    expect(grade.passed).toBe(false);
    expect(grade.score).toBe(1);
    expect(grade.evaluatorResults[1]).toEqual({
      name: 'judge',
      type: 'fixed',
      score: 0,
      weight: 1,
      verdict: 'error',
      hits: [],
      misses: [],
      error: 'script crashed',
    });
  });

  it('reports an unknown type and a NaN score as evaluator errors', async () => {
    const grade = await gradeCase(
      [{ name: 'mystery', type: 'llm_grader' }, fixed('nan', Number.NaN)],
      context,
      registry,
    );
    expect(grade.error).toContain(
      'evaluator "mystery" (llm_grader) failed: unknown evaluator type "llm_grader"; use one of: code_judge,',
    );
    expect(grade.error).toContain(
      'evaluator "nan" (fixed) failed: it returned a score that is not a number (NaN)',
    );
  });

  it('grades at once when every grader grades at once, and the same as through evaluate', async () => {
    const configs: EvaluatorConfig[] = [
      { name: 'has', type: 'contains', value: 'answer' },
      { name: 'not', type: 'not_equals', value: 'nope' },
      { name: 'off', type: 'regex', pattern: '^x', negate: true },
      { name: 'bad', type: 'contains' },
    ];
    const now = gradeCase(configs, context, registry);
    expect(now).not.toBeInstanceOf(Promise);
    // The same graders through `evaluate` only (as a registered grader without `evaluateNow`).
    const waiting = createEvaluatorRegistry(
      defaultEvaluators().map(({ evaluateNow: _now, ...evaluator }) => evaluator),
    );
    const waited = gradeCase(configs, context, waiting);
    expect(waited).toBeInstanceOf(Promise);
    expect(await waited).toEqual(now);
    expect((now as CaseGrade).error).toBe(
      'evaluator "bad" (contains) failed: "value" is missing; give "value" as a string or a list of strings the answer must contain',
    );
  });

  it('keeps graders in order when one waits between graders that do not', async () => {
    const grade = gradeCase(
      [
        { name: 'first', type: 'contains', value: 'answer' },
        fixed('waits', 0.5),
        { name: 'last', type: 'equals', value: 'x' },
      ],
      context,
      registry,
    );
    expect(grade).toBeInstanceOf(Promise);
    expect((await grade).evaluatorResults.map((result) => result.name)).toEqual([
      'first',
      'waits',
      'last',
    ]);
  });

  it('joins reasonings with evaluator names', async () => {
    const grade = await gradeCase(
      [
        fixed('a', 1, { reasoning: 'all good' }),
        fixed('b', 1),
        fixed('c', 1, { reasoning: 'fine' }),
      ],
      context,
      registry,
    );
    expect(grade.reasoning).toBe('a: all good\nc: fine');
  });

  it('is an error when nothing grades the case', async () => {
    const none = await gradeCase([], context, registry);
    expect(none).toMatchObject({ score: 0, passed: false, evaluatorResults: [] });
    expect(none.error).toBe(
      'case "case-1" has no evaluators; add "evaluators" to the case or "execution.evaluators" to the file' +
        ', or name a judge (`--judge-target`, `execution.judge_target` in the file, or `judge_target` on the target) to grade it with the default llm_judge',
    );
    // A tests: file's test, in that format's words.
    const test = await gradeCase(
      [],
      { ...context, evalCase: { ...context.evalCase, testsFormat: true } },
      registry,
    );
    expect(test.error).toBe(
      'test "case-1" has no assertions; add "assertions" to the test or to the file' +
        ', or name a judge (`--judge-target`, `execution.judge_target` in the file, or `judge_target` on the target) to grade it with the default llm_judge',
    );
    const weightless = await gradeCase([fixed('info', 1, { weight: 0 })], context, registry);
    expect(weightless.passed).toBe(false);
    expect(weightless.error).toContain('has no evaluator with weight > 0');
  });
});
