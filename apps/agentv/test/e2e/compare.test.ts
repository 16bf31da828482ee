import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project, runAgentv } from '../support/project.js';

// `agentv compare` end to end on constructed result files.

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

const line = (id: string, score: number, passed: boolean, target = 'agent', error?: string) =>
  JSON.stringify({
    timestamp: '2026-01-01T00:00:00.000Z',
    eval_id: id,
    dataset: 'support',
    target,
    score,
    passed,
    hits: [],
    misses: [],
    reasoning: '',
    candidate_answer: '',
    evaluator_results: [],
    attempts: 1,
    duration_ms: 5,
    ...(error === undefined ? {} : { error }),
    trace_summary: null,
    eval_file: 'evals/support.yaml',
  });

const jsonl = (lines: string[]) => `${lines.join('\n')}\n`;

// base -> new: c1, c2 regressed; c3..c6 fixed (c4 errored in base); c7, c8 ties; c9 drops 0.1
// while passing; c10 stays failing; c11 only in base, c12 only in new.
const BASE = [
  line('c1', 1, true),
  line('c2', 0.9, true),
  line('c3', 0.2, false),
  line('c4', 0, false, 'agent', 'agent crashed'),
  line('c5', 0.5, false),
  line('c6', 0.3, false),
  line('c7', 1, true),
  line('c8', 0.8, true),
  line('c9', 0.9, true),
  line('c10', 0.1, false),
  line('c11', 1, true),
];
const NEW = [
  line('c1', 0, false),
  line('c2', 0.4, false),
  line('c3', 1, true),
  line('c4', 0.8, true),
  line('c5', 0.9, true),
  line('c6', 0.7, true),
  line('c7', 1, true),
  line('c8', 0.8, true),
  line('c9', 0.8, true),
  line('c10', 0.1, false),
  line('c12', 1, true),
];

async function comparedProject(): Promise<Project> {
  return createProject({
    'base.jsonl': jsonl(BASE),
    'new.jsonl': jsonl(NEW),
    'same.jsonl': jsonl(BASE.slice(0, 10)),
    // One run of two targets: "next" holds the new scores.
    'both.jsonl': jsonl([
      ...BASE.slice(0, 10),
      ...NEW.slice(0, 10).map((l) => l.replace('"target":"agent"', '"target":"next"')),
    ]),
    'bad.jsonl': `${BASE[0]}\n{"eval_id": "x"}\n`,
  });
}

const compare = (args: string[]) => runAgentv(['compare', ...args], project!.dir);

describe('agentv compare', () => {
  it('prints a table with regressions first and exits 0 without --fail-on-regression', async () => {
    project = await comparedProject();
    const run = await compare(['base.jsonl', 'new.jsonl']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('agentv compare: base.jsonl -> new.jsonl');
    expect(run.stdout).toContain(
      '10 cases in both: 4 wins, 3 losses, 3 ties; 2 regressed (passed -> failed), 4 fixed',
    );
    // pass rate 5/10 -> 7/10; mean score 5.7/10 -> 6.5/10
    expect(run.stdout).toContain('pass rate   50.0% -> 70.0%  +20.0 pp');
    expect(run.stdout).toContain('mean score  0.570 -> 0.650  +0.080');
    // b = 2, c = 4: exact p = 2 * (1 + 6 + 15) / 64 = 0.6875
    expect(run.stdout).toContain('McNemar (exact binomial, b=2 c=4): p = 0.688');
    expect(run.stdout).toContain('bootstrap: 10000 paired resamples, seed 1');
    const rows = run.stdout.split('\n').filter((l) => /^\s+(REGRESSED|fixed|loss|win)\s/.test(l));
    expect(rows.map((row) => row.trim().split(/\s+/)[1])).toEqual([
      'c1',
      'c2',
      'c9',
      'c5',
      'c6',
      'c3',
      'c4',
    ]);
    expect(run.stdout).toMatch(/only in base \(1\):\n\s+c11/);
    expect(run.stdout).toMatch(/only in new \(1\):\n\s+c12/);
  });

  it('writes JSON with the statistics, deterministic for a seed', async () => {
    project = await comparedProject();
    const first = await compare(['base.jsonl', 'new.jsonl', '--format', 'json', '--seed', '5']);
    const second = await compare(['base.jsonl', 'new.jsonl', '--format', 'json', '--seed', '5']);
    expect(first.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    const report = JSON.parse(first.stdout);
    expect(report.summary).toEqual({
      cases: 10,
      wins: 4,
      losses: 3,
      ties: 3,
      regressions: 2,
      fixes: 4,
      only_in_base: 1,
      only_in_new: 1,
    });
    expect(report.mcnemar).toEqual({ b: 2, c: 4, method: 'exact', p_value: 0.6875 });
    expect(report.bootstrap).toEqual({ resamples: 10000, seed: 5 });
    expect(report.pass_rate.base).toBeCloseTo(0.5, 12);
    expect(report.pass_rate.new).toBeCloseTo(0.7, 12);
    // A difference of 10 paired 0/1 verdicts moves in steps of 1/10.
    for (const bound of report.pass_rate.ci95) {
      expect(Math.round(bound * 10) / 10).toBeCloseTo(bound, 12);
    }
    expect(report.pass_rate.ci95[0]).toBeLessThanOrEqual(0.2);
    expect(report.pass_rate.ci95[1]).toBeGreaterThanOrEqual(0.2);
    expect(report.cases[0]).toMatchObject({
      eval_file: 'evals/support.yaml',
      eval_id: 'c1',
      change: 'regressed',
      outcome: 'loss',
      base_score: 1,
      new_score: 0,
      delta: -1,
    });
    expect(report.cases.find((c: { eval_id: string }) => c.eval_id === 'c4')).toMatchObject({
      change: 'fixed',
      base_error: 'agent crashed',
    });
    expect(report.only_in_base).toEqual([
      { eval_file: 'evals/support.yaml', eval_id: 'c11', target: 'agent' },
    ]);
  });

  it('writes markdown for a pull-request comment, regressions first', async () => {
    project = await comparedProject();
    const run = await compare(['base.jsonl', 'new.jsonl', '--format', 'markdown']);
    expect(run.code).toBe(0);
    const text = run.stdout;
    expect(text).toMatch(/^### AgentV compare: `base\.jsonl` → `new\.jsonl`/);
    expect(text).toContain('**Pass rate 50.0% → 70.0% (+20.0 pp');
    expect(text).toContain('❌ 2 regressed · 4 fixed · McNemar p = 0.688');
    expect(text.indexOf('#### Regressions (2)')).toBeLessThan(text.indexOf('#### Score changes'));
    expect(text).toContain('| `c1` | `evals/support.yaml` | 1.000 ✅ | 0.000 ❌ | -1.000 |');
    expect(text).toContain('<summary>Only in base (1)</summary>');
  });

  it('exits 1 with --fail-on-regression only when a passing case now fails', async () => {
    project = await comparedProject();
    expect((await compare(['base.jsonl', 'new.jsonl', '--fail-on-regression'])).code).toBe(1);
    const same = await compare(['base.jsonl', 'same.jsonl', '--fail-on-regression']);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('0 regressed');
  });

  it('compares two targets of one result file', async () => {
    project = await comparedProject();
    const run = await compare([
      'both.jsonl',
      '--base-target',
      'agent',
      '--new-target',
      'next',
      '--format',
      'json',
    ]);
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout);
    expect(report.base).toEqual({ file: 'both.jsonl', target: 'agent' });
    expect(report.new).toEqual({ file: 'both.jsonl', target: 'next' });
    expect(report.summary).toMatchObject({ cases: 10, regressions: 2, fixes: 4 });
    const missing = await compare(['both.jsonl']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      'comparing within both.jsonl needs --base-target and --new-target',
    );
    expect(missing.stderr).toContain('agent, next');
    const unknown = await compare(['both.jsonl', '--base-target', 'agent', '--new-target', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      '--new-target nope: both.jsonl holds no result of that target',
    );
  });

  it('exits 2 for bad input, naming the file and line', async () => {
    project = await comparedProject();
    const missing = await compare(['base.jsonl', 'nope.jsonl']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read nope.jsonl: the file does not exist');
    const bad = await compare(['base.jsonl', 'bad.jsonl']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('bad.jsonl:2: missing timestamp, dataset, target, score, passed');
    const format = await compare(['base.jsonl', 'new.jsonl', '--format', 'html']);
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('--format must be table, json or markdown');
    const duplicate = await compare(['base.jsonl', 'base.jsonl', 'new.jsonl']);
    expect(duplicate.code).toBe(2);
    expect(duplicate.stderr).toContain('takes one or two result files, got 3');
  });
});
