// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} is upstream's eval-file syntax, not a JS template
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadEvalFile } from '../load-eval-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-upstream-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function load(text: string) {
  const file = path.join(dir, 'suite.eval.yaml');
  await writeFile(file, text);
  const result = await loadEvalFile(file, { cwd: dir, repoRoot: dir });
  const issues = result.issues.map((issue) => ({
    severity: issue.severity,
    line: issue.line,
    message: issue.message,
  }));
  return { value: result.value, issues };
}

describe('loadEvalFile: the tests: format of AgentV 2.7–4.42', () => {
  it('reads tests, input text, criteria, expected_output and assertions as our cases', async () => {
    await writeFile(path.join(dir, 'check.mjs'), '');
    const { value, issues } = await load(
      [
        'name: refunds',
        'tags: [smoke]',
        'execution:',
        '  target: agent',
        'tests:',
        '  - id: one',
        '    criteria: Refunds the order',
        '    input: Please refund order 42',
        '    expected_output: Refunded.',
        '    assertions:',
        '      - type: contains',
        '        value: Refunded',
        '      - type: regex',
        '        value: "order \\\\d+"',
        '      - type: code-grader',
        '        command: [node, ./check.mjs]',
        '      - Mentions the amount',
        '      - Is polite',
      ].join('\n'),
    );
    expect(issues).toEqual([]);
    expect(value?.dataset).toBe('refunds');
    const [one] = value!.cases;
    expect(one).toMatchObject({
      id: 'one',
      line: 6,
      target: 'agent',
      tags: ['smoke'],
      expectedOutcome: 'Refunds the order',
      inputMessages: [
        { role: 'user', content: [{ type: 'text', value: 'Please refund order 42' }] },
      ],
      expectedMessages: [{ role: 'assistant', content: [{ type: 'text', value: 'Refunded.' }] }],
    });
    expect(one!.evaluators).toEqual([
      { name: 'contains', type: 'contains', value: 'Refunded' },
      { name: 'regex', type: 'regex', pattern: 'order \\d+' },
      { name: 'code_judge', type: 'code_judge', script: ['node', './check.mjs'] },
      {
        name: 'rubric',
        type: 'rubric',
        rubrics: ['Mentions the amount', 'Is polite'],
        weight: 2,
      },
    ]);
    // Positions point at what the file says.
    expect(one!.evaluatorPositions?.regex?.line).toBe(13);
  });

  it('refuses a grader AgentV does not have at its line, with the reason', async () => {
    const { issues } = await load(
      [
        'tests:',
        '  - id: one',
        '    input: hi',
        '    assertions:',
        '      - type: contains',
        '        value: hi',
        '      - type: token-usage',
        '        max_total: 10',
      ].join('\n'),
    );
    expect(issues).toEqual([
      {
        severity: 'error',
        line: 7,
        message: 'grader type "token-usage" is not supported: token-usage is not an AgentV grader',
      },
    ]);
  });

  it("passes cases at upstream's threshold 0.8 unless the file or the case sets one", async () => {
    const cases = [
      'tests:',
      '  - id: one',
      '    input: hi',
      '    assertions: [{type: contains, value: hi}]',
    ];
    cases.push('  - id: two', '    input: hi', '    execution: { threshold: 0.5 }');
    cases.push('    assertions: [{type: contains, value: hi}]');
    const defaulted = await load(cases.join('\n'));
    expect(defaulted.issues).toEqual([]);
    expect(defaulted.value!.cases.map((item) => item.threshold)).toEqual([0.8, 0.5]);
    const suite = await load(['execution: { threshold: 0.6 }', ...cases].join('\n'));
    expect(suite.value!.cases.map((item) => item.threshold)).toEqual([0.6, 0.5]);
  });

  it('carries required and min_score over as upstream reads them, at their lines when wrong', async () => {
    const { value, issues } = await load(
      [
        'tests:',
        '  - id: one',
        '    input: hi',
        '    assertions:',
        '      - { name: a, type: contains, value: hi, required: true }',
        '      - { name: b, type: contains, value: hi, required: 0.6 }',
        '      - { name: c, type: contains, value: hi, required: true, min_score: 0.7 }',
        '      - { name: d, type: contains, value: hi, required: 0.5, min_score: 0.9 }',
        '      - { name: e, type: contains, value: hi, min_score: 0.7 }',
        '      - { name: f, type: contains, value: hi, required: 1.5 }',
        '      - type: composite',
        '        assertions:',
        '          - { name: g, type: contains, value: hi, required: true }',
        '        aggregator: { type: weighted_average }',
      ].join('\n'),
    );
    expect(issues).toEqual([
      {
        severity: 'warning',
        line: 9,
        message:
          '"min_score" without "required: true" has no effect (as in AgentV 4.42) and is ignored',
      },
      {
        severity: 'error',
        line: 10,
        message:
          '"required" must be true, false or a score above 0 and at most 1, e.g. `0.6`, got 1.5',
      },
      {
        severity: 'warning',
        line: 13,
        message:
          '"required" on a member of a composite has no effect (as in AgentV 4.42) and is ignored',
      },
    ]);
    expect(value).toBeUndefined();
    const fixed = await load(
      [
        'tests:',
        '  - id: one',
        '    input: hi',
        '    assertions:',
        '      - { name: a, type: contains, value: hi, required: true }',
        '      - { name: b, type: contains, value: hi, required: 0.6 }',
        '      - { name: c, type: contains, value: hi, required: true, min_score: 0.7 }',
        '      - { name: d, type: contains, value: hi, required: 0.5, min_score: 0.9 }',
      ].join('\n'),
    );
    expect(fixed.issues).toEqual([]);
    expect(fixed.value!.cases[0]!.evaluators!.map((grader) => grader.required)).toEqual([
      true,
      0.6,
      0.7,
      0.9,
    ]);
  });

  it('refuses multi-turn conversations and a trials strategy it lacks, and reports a wrong input at its line', async () => {
    const { issues } = await load(
      [
        'execution:',
        '  trials: { count: 3, strategy: confidence_interval }',
        'tests:',
        '  - id: one',
        '    mode: conversation',
        '    turns: []',
        '    criteria: x',
        '  - id: two',
        '    input:',
        '      - role: narrator',
        '        content: hi',
      ].join('\n'),
    );
    expect(issues.map((issue) => [issue.severity, issue.line])).toEqual([
      ['error', 2],
      ['error', 4],
      ['error', 5],
      ['error', 6],
      ['error', 10],
    ]);
  });

  it("reads the file's trials as its repeats (pass_at_k by default, or mean)", async () => {
    const { value, issues } = await load(
      [
        'execution:',
        '  trials: { count: 3, cost_limit_usd: 1 }',
        'tests:',
        '  - id: one',
        '    input: hi',
        '    criteria: x',
        '    execution: { trials: { count: 9 } }',
      ].join('\n'),
    );
    expect(issues).toEqual([
      {
        severity: 'warning',
        line: 2,
        message: '`trials.cost_limit_usd` is not enforced: every trial runs',
      },
      {
        severity: 'warning',
        line: 7,
        message: "a case's `execution.trials` is ignored, as in AgentV 4.x",
      },
    ]);
    expect(value?.cases[0]?.repeat).toEqual({ count: 3, reducer: 'pass_at_k' });
    const mean = await load(
      'execution:\n  trials: { count: 2, strategy: mean }\ntests:\n  - { id: a, input: hi, criteria: x }\n',
    );
    expect(mean.value?.cases[0]?.repeat).toEqual({ count: 2, reducer: 'mean' });
  });

  it('warns about old keys beside new ones, naming the preferred key', async () => {
    const { value, issues } = await load(
      [
        'tests:',
        '  - id: one',
        '    expected_outcome: old',
        '    input_messages:',
        '      - { role: user, content: hi }',
        '    evaluators:',
        '      - { type: contains, value: hi }',
      ].join('\n'),
    );
    expect(value?.cases[0]?.expectedOutcome).toBe('old');
    expect(issues).toEqual([
      {
        severity: 'warning',
        line: 3,
        message: '"expected_outcome" is the old spelling of "criteria"',
      },
      { severity: 'warning', line: 4, message: '"input_messages" is the old spelling of "input"' },
      { severity: 'warning', line: 6, message: '"evaluators" is the old spelling of "assertions"' },
    ]);
  });

  it('in an evalcases: file made 4.x by a case key, says so once at that key and reads it as 4.x', async () => {
    const { value, issues } = await load(
      [
        'evalcases:',
        '  - id: one',
        '    input_messages: [{ role: user, content: hi }]',
        '    evaluators: [{ type: contains, value: hi }]',
        '  - id: two',
        '    input: hello',
        '    evaluators: [{ type: contains, value: hello }]',
        '  - id: three',
        '    criteria: says hi',
        '    assert: [{ type: contains, value: hi }]',
        '    input_messages: [{ role: user, content: hi }]',
      ].join('\n'),
    );
    expect(issues).toEqual([
      {
        severity: 'warning',
        line: 6,
        message:
          '"input" is a key of AgentV 4.x\'s `tests:` format, so this `evalcases:` file is read as one: a case passes at score 0.8 unless the file or the case sets a threshold (in the `evalcases:` format, when every grader passes)',
      },
    ]);
    // Read as AgentV 4.x reads it: `input` is the question, and the file's threshold is 0.8.
    const text = (content: string) => [
      { role: 'user', content: [{ type: 'text', value: content }] },
    ];
    expect(value?.cases.map((each) => each.inputMessages)).toEqual([
      text('hi'),
      text('hello'),
      text('hi'),
    ]);
    expect(value?.cases.map((each) => each.threshold)).toEqual([0.8, 0.8, 0.8]);
  });

  it('puts the file input first, reads input_files, vars and ${{ VAR }} as upstream does', async () => {
    process.env.AGENTV_H35_MODEL = 'gpt-x';
    delete process.env.AGENTV_H35_UNSET;
    await writeFile(path.join(dir, 'notes.txt'), 'n');
    const again = await load(
      [
        'input: You are terse.',
        'execution:',
        '  target: ${{ AGENTV_H35_MODEL }}',
        'tests:',
        '  - id: one',
        '    vars: { city: Paris }',
        '    input: "Weather in {{ city }}?"',
        '    input_files: [./notes.txt]',
        '    criteria: "Talks about {{ city }} ${{ AGENTV_H35_UNSET }}"',
        '    conversation_id: ${{ AGENTV_H35_UNSET }}',
      ].join('\n'),
    );
    expect(again.issues).toEqual([]);
    const [one] = again.value!.cases;
    expect(one).toMatchObject({ target: 'gpt-x', expectedOutcome: 'Talks about Paris ' });
    expect(one!.conversationId).toBeUndefined();
    expect(one!.inputMessages.map((message) => message.role)).toEqual(['user', 'user']);
    expect(one!.inputMessages[1]!.content).toMatchObject([
      { type: 'file', value: './notes.txt' },
      { type: 'text', value: 'Weather in Paris?' },
    ]);
  });
});
