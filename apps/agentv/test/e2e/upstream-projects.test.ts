// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} is targets-file syntax, not a JS template
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// Projects written for AgentV 4.x: their targets files, trials, and the judge rules.

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

/** Answers "yes" only in the repeat named by PASS_ON (AGENTV_REPEAT counts from 1). */
const FLAKY_AGENT = `
const repeat = Number(process.env.AGENTV_REPEAT ?? '1');
process.stdout.write(repeat === Number(process.env.PASS_ON) ? 'yes' : 'no');
`;

const TARGETS_4X = `
targets:
  - name: default
    use_target: \${{ AGENT_TARGET }}
  - name: flaky
    provider: cli
    command: node flaky.cjs
    cwd: \${{ AGENT_DIR }}
    healthcheck:
      command: node -e ""
    grader_target: grader
  - name: grader
    provider: mock
    response: '{"score": 1, "hits": [], "misses": [], "reasoning": "fine"}'
`;

describe('projects written for AgentV 4.x', () => {
  it('runs trials as repeats through a use_target target, and stops naming the unset variable', async () => {
    project = await createProject({
      '.agentv/targets.yaml': TARGETS_4X,
      'evals/flaky.cjs': FLAKY_AGENT,
      'evals/trials.eval.yaml': [
        'execution:',
        '  trials: { count: 3, strategy: pass_at_k }',
        'tests:',
        '  - id: yes',
        '    input: Say yes',
        '    assertions: [{ type: equals, value: "yes" }]',
      ].join('\n'),
    });
    const unset = await runAgentv(['eval', 'evals/trials.eval.yaml'], project.dir, {
      AGENT_TARGET: undefined,
    });
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain(
      'error: .agentv/targets.yaml:4:5: target "default": uses environment variable(s) AGENT_TARGET, which are not set',
    );

    const run = await runAgentv(
      ['eval', 'evals/trials.eval.yaml', '--out', 'out.jsonl'],
      project.dir,
      { AGENT_TARGET: 'flaky', PASS_ON: '2', AGENT_DIR: undefined },
    );
    expect(run.stderr).not.toContain('error');
    expect(run.code).toBe(0);
    const [line] = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(line).toMatchObject({
      eval_id: 'yes',
      target: 'default',
      score: 1,
      passed: true,
      flaky: true,
      repeats: { reducer: 'pass_at_k', count: 3 },
    });

    // --repeat wins over the file's trials.
    const flagged = await runAgentv(
      ['eval', 'evals/trials.eval.yaml', '--repeat', '1', '--out', 'once.jsonl'],
      project.dir,
      { AGENT_TARGET: 'flaky', PASS_ON: '2' },
    );
    expect(flagged.code).toBe(1);
  });

  it('refuses a run whose files ask for different trials', async () => {
    project = await createProject({
      '.agentv/targets.yaml': TARGETS_4X,
      'evals/flaky.cjs': FLAKY_AGENT,
      'evals/a.eval.yaml':
        'execution: { trials: { count: 2 } }\ntests: [{ id: a, input: x, assertions: [{ type: contains, value: y }] }]\n',
      'evals/b.eval.yaml':
        'tests: [{ id: b, input: x, assertions: [{ type: contains, value: y }] }]\n',
    });
    const run = await runAgentv(['eval', 'evals/a.eval.yaml', 'evals/b.eval.yaml'], project.dir, {
      AGENT_TARGET: 'flaky',
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /the eval files of this run ask for different trials \(2 trials \(pass_at_k\): .*a\.eval\.yaml; once: .*b\.eval\.yaml\)/,
    );
  });

  it('lets a mock target with no judge judge its own answers, saying so once', async () => {
    project = await createProject({
      '.agentv/targets.yaml': [
        'targets:',
        '  - name: default',
        '    provider: mock',
        `    response: '{"score": 0.9, "hits": ["ok"], "misses": [], "reasoning": "good"}'`,
      ].join('\n'),
      'evals/judged.yaml': [
        'evalcases:',
        '  - id: one',
        '    expected_outcome: Answers',
        '    input_messages: [{ role: user, content: hi }]',
        '  - id: two',
        '    expected_outcome: Answers',
        '    input_messages: [{ role: user, content: hello }]',
      ].join('\n'),
    });
    const run = await runAgentv(['eval', 'evals/judged.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(0);
    const warnings = run.stderr
      .split('\n')
      .filter((line) => line.includes('judges its own answers'));
    expect(warnings).toEqual([
      'warning: .agentv/targets.yaml:2:5: target "default": no judge target is configured: target "default" (mock) judges its own answers (hint: to have another model judge, set `judge_target: <target>` on target "default", `execution.judge_target` in the eval file, or pass --judge-target NAME)',
    ]);
    const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(lines.map((line) => [line.eval_id, line.score, line.passed])).toEqual([
      ['one', 0.9, true],
      ['two', 0.9, true],
    ]);
  });
});
