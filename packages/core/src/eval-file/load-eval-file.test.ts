import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Issue } from '../errors/input-issue.js';
import { loadEvalFile } from './load-eval-file.js';

const fixtures = path.join(import.meta.dirname, '__fixtures__');
const valid = (name: string) => path.join(fixtures, 'valid', name);
const invalid = (name: string) => path.join(fixtures, 'invalid', name);

/** The parts of an issue a user reads, without the (long) file path. */
function brief(issue: Issue) {
  return {
    severity: issue.severity,
    line: issue.line,
    ...(issue.caseId === undefined ? {} : { caseId: issue.caseId }),
    message: issue.message,
  };
}

/** The issues of `text` loaded as the eval file `name` in `dir`, briefly and with their hints. */
async function issuesOfFile(dir: string, name: string, text: string) {
  const file = path.join(dir, name);
  await writeFile(file, text);
  return (await loadEvalFile(file)).issues.map((issue) => ({ ...brief(issue), hint: issue.hint }));
}

async function issuesOf(file: string) {
  const result = await loadEvalFile(file);
  expect(result.value).toBeUndefined();
  return result.issues.map(brief);
}

describe('loadEvalFile: valid files', () => {
  it('loads the full example eval file with defaults and overrides applied', async () => {
    const result = await loadEvalFile(valid('full-spec.yaml'));
    expect(result.issues).toEqual([]);
    const file = result.value!;
    expect(file).toMatchObject({
      filePath: valid('full-spec.yaml'),
      dataset: 'my-suite',
      description: 'Refund flows of the support agent',
    });
    const [refund, plain] = file.cases;
    expect(refund).toEqual({
      id: 'refund-001',
      dataset: 'my-suite',
      filePath: valid('full-spec.yaml'),
      line: 16,
      column: 5,
      evaluatorPositions: {
        amount: { line: 35, column: 17 },
        'amount.script': { line: 36, column: 19 },
        'amount.script:key': { line: 36, column: 11 },
      },
      // The file's execution.target and the case's own, where unknown target names point.
      targetPositions: {
        'target.default': { line: 5, column: 11 },
        'target.other': { line: 32, column: 15 },
      },
      expectedOutcome: 'Agent refunds the order',
      inputMessages: [
        { role: 'system', content: [{ type: 'text', value: 'You are a support agent.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', value: 'Please refund order 42.' },
            {
              type: 'file',
              value: './fixtures/order-42.json',
              path: valid('fixtures/order-42.json'),
              isGuideline: false,
            },
          ],
        },
      ],
      expectedMessages: [
        {
          role: 'assistant',
          content: [{ type: 'text', value: 'Refunded.' }],
          toolCalls: [{ tool: 'lookupOrder', input: { id: 42 } }],
        },
      ],
      conversationId: 'conv-7',
      target: 'other',
      // The case's rubrics are graded by a rubric judge added to its evaluators (AgentV 1.x).
      evaluators: [
        { name: 'amount', type: 'code_judge', script: 'node ./check-amount.mjs' },
        { name: 'rubrics', type: 'rubric' },
      ],
      threshold: 0.8,
      rubrics: ['Mentions the refund amount'],
      rubricItems: [
        { id: 'rubric-1', description: 'Mentions the refund amount', weight: 1, required: true },
      ],
    });
    // The second case has no overrides: the file's target and evaluators apply.
    expect(plain).toMatchObject({ id: 'refund-002', line: 39, target: 'default', threshold: 0.8 });
    expect(plain!.expectedMessages).toEqual([]);
    expect(plain!.evaluators).toEqual([
      { name: 'llm_judge', type: 'llm_judge' },
      { name: 'contains', type: 'contains', value: 'refund', case_sensitive: false },
      { name: 'contains-2', type: 'contains', value: 'order', weight: 0.5 },
    ]);
  });

  it('accepts the original format: outcome, root target, object content, tool role, case evaluators', async () => {
    const result = await loadEvalFile(valid('compat.yaml'));
    expect(result.issues).toEqual([]);
    const file = result.value!;
    expect(file.dataset).toBe('compat');
    expect(file.description).toBeUndefined();
    const evalCase = file.cases[0]!;
    expect(evalCase.expectedOutcome).toBe('Agent looks the order up before answering');
    expect(evalCase.target).toBe('legacy_agent');
    expect(evalCase.threshold).toBeUndefined();
    expect(evalCase.inputMessages[0]).toEqual({
      role: 'user',
      name: 'customer',
      structured: { order_id: 42, action: 'refund' },
      content: [{ type: 'text', value: '{\n  "order_id": 42,\n  "action": "refund"\n}' }],
    });
    expect(evalCase.inputMessages[1]!.toolCalls).toEqual([
      { tool: 'lookupOrder', input: { id: 42 }, output: { status: 'shipped' } },
    ]);
    expect(evalCase.inputMessages[2]).toEqual({
      role: 'tool',
      name: 'lookupOrder',
      content: [{ type: 'text', value: '{"status": "shipped"}' }],
    });
    expect(evalCase.expectedMessages).toEqual([
      {
        role: 'assistant',
        content: [],
        toolCalls: [
          { tool: 'lookupOrder', input: { id: 42 } },
          { tool: 'refund', output: { ok: true } },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', value: 'Your refund is on its way.' }] },
    ]);
    expect(evalCase.evaluators.map((evaluator) => evaluator.name)).toEqual([
      'tool_trajectory',
      'tool_trajectory-2',
      'rubrics',
    ]);
    expect(evalCase.evaluators[1]).toEqual({
      name: 'tool_trajectory-2',
      type: 'tool_trajectory',
      mode: 'any_order',
      minimums: { lookupOrder: 1 },
    });
    expect(evalCase.rubricItems).toEqual([
      { id: 'rubric-1', description: 'Mentions the order number', weight: 1, required: true },
      { id: 'tone', description: 'Polite tone', weight: 2, required: false },
      { id: 'rubric-3', description: 'Offers further help', weight: 1, required: true },
    ]);
    expect(evalCase.rubrics).toEqual([
      'Mentions the order number',
      'Polite tone',
      'Offers further help',
    ]);
  });

  it('marks files matching the guideline patterns as guidelines', async () => {
    const result = await loadEvalFile(valid('guidelines.yaml'));
    expect(result.issues).toEqual([]);
    const [system, user] = result.value!.cases[0]!.inputMessages;
    expect(system!.content).toEqual([
      {
        type: 'file',
        value: './prompts/style.md',
        path: valid('prompts/style.md'),
        isGuideline: true,
      },
    ]);
    expect(
      user!.content.map((block) => (block.type === 'file' ? block.isGuideline : 'text')),
    ).toEqual([true, 'text', false]);
  });

  it('uses the configured guideline patterns instead of the defaults', async () => {
    const result = await loadEvalFile(valid('guidelines.yaml'), {
      guidelinePatterns: ['**/fixtures/*.txt'],
    });
    const blocks = result.value!.cases[0]!.inputMessages.flatMap((message) => message.content);
    const flags = blocks.flatMap((block) =>
      block.type === 'file' ? [[block.value, block.isGuideline]] : [],
    );
    expect(flags).toEqual([
      ['./prompts/style.md', false],
      ['./support.instructions.md', false],
      ['./fixtures/ticket.txt', true],
    ]);
  });

  it('resolves a relative eval file path against the cwd option', async () => {
    const result = await loadEvalFile('valid/compat.yaml', { cwd: fixtures });
    expect(result.value?.filePath).toBe(valid('compat.yaml'));
  });
});

describe('loadEvalFile: invalid files', () => {
  it('reports a missing eval file without a line', async () => {
    const result = await loadEvalFile(invalid('no-such-file.yaml'));
    expect(result.issues.map(brief)).toEqual([
      { severity: 'error', line: undefined, message: 'eval file not found' },
    ]);
    expect(result.issues[0]!.file).toBe(invalid('no-such-file.yaml'));
  });

  it('reports empty and comment-only files', async () => {
    expect(await issuesOf(invalid('empty.yaml'))).toEqual([
      { severity: 'error', line: undefined, message: 'eval file is empty' },
    ]);
    expect(await issuesOf(invalid('comments-only.yaml'))).toEqual([
      { severity: 'error', line: undefined, message: 'eval file is empty' },
    ]);
  });

  it('reports a YAML syntax error with the position the parser gives', async () => {
    const result = await loadEvalFile(invalid('bad-yaml-syntax.yaml'));
    expect(result.issues).toHaveLength(1);
    expect(result.issues[0]).toMatchObject({ severity: 'error', line: 4, column: 3 });
    expect(result.issues[0]!.message).toMatch(/^YAML syntax error: Flow sequence/);
    expect(result.issues[0]!.message).not.toContain('\n');
  });

  it('reports a top level that is not a mapping', async () => {
    expect(await issuesOf(invalid('not-a-mapping.yaml'))).toEqual([
      {
        severity: 'error',
        line: 1,
        message: 'the top level of the eval file must be a mapping (key: value pairs), not a list',
      },
    ]);
  });

  it('reports missing and empty evalcases', async () => {
    expect(await issuesOf(invalid('missing-evalcases.yaml'))).toEqual([
      { severity: 'error', line: 1, message: 'missing required key "evalcases"' },
    ]);
    expect(await issuesOf(invalid('empty-evalcases.yaml'))).toEqual([
      { severity: 'error', line: 1, message: 'evalcases must have at least 1 entry' },
    ]);
  });

  it('reports a case without an id by its position in the list', async () => {
    const result = await loadEvalFile(invalid('case-without-id.yaml'));
    expect(result.issues.map(brief)).toEqual([
      { severity: 'error', line: 4, message: 'evalcases[1] is missing required key "id"' },
    ]);
    expect(result.issues[0]!.hint).toContain('id:');
  });

  it('reports a duplicate id with both lines', async () => {
    expect(await issuesOf(invalid('duplicate-ids.yaml'))).toEqual([
      {
        severity: 'error',
        line: 8,
        caseId: 'same',
        message: 'duplicate case id "same" on lines 2 and 8',
      },
    ]);
  });

  it('returns the valid cases along with the errors when asked for a partial result', async () => {
    const file = invalid('wrong-types.yaml');
    const strict = await loadEvalFile(file);
    const partial = await loadEvalFile(file, { partial: true });
    expect(partial.issues).toEqual(strict.issues);
    expect(strict.value).toBeUndefined();
    const duplicates = await loadEvalFile(invalid('duplicate-ids.yaml'), { partial: true });
    expect(duplicates.value?.cases.map((evalCase) => evalCase.id)).toEqual([
      'same',
      'other',
      'same',
    ]);
    const badRole = await loadEvalFile(invalid('bad-role.yaml'), { partial: true });
    expect(badRole.value?.cases).toEqual([]);
  });

  it('reports missing and empty input_messages', async () => {
    expect(await issuesOf(invalid('missing-input-messages.yaml'))).toEqual([
      {
        severity: 'error',
        line: 2,
        caseId: 'no-input',
        message: 'missing required key "input_messages"',
      },
      {
        severity: 'error',
        line: 5,
        caseId: 'empty-input',
        message: 'input_messages must have at least 1 entry',
      },
    ]);
  });

  it('reports a bad role with the allowed roles', async () => {
    const result = await loadEvalFile(invalid('bad-role.yaml'));
    expect(result.issues.map(brief)).toEqual([
      {
        severity: 'error',
        line: 6,
        caseId: 'role',
        message:
          'input_messages[1].role must be one of "system", "user", "assistant", "tool", not "bot"',
      },
    ]);
    expect(result.issues[0]).toMatchObject({
      column: 15,
      hint: 'use one of: system, user, assistant, tool',
    });
  });

  it('reports bad content blocks and content of the wrong type', async () => {
    expect(await issuesOf(invalid('bad-content-block.yaml'))).toEqual([
      {
        severity: 'error',
        line: 7,
        caseId: 'blocks',
        message: 'input_messages[0].content[1].type must be one of "text", "file", not "image"',
      },
      {
        severity: 'error',
        line: 8,
        caseId: 'blocks',
        message: 'input_messages[0].content[2] is missing required key "value"',
      },
      {
        severity: 'error',
        line: 10,
        caseId: 'blocks',
        message:
          'input_messages[1].content must be text, a list or a mapping, not a whole number (42)',
      },
    ]);
  });

  it('reports bad evaluator entries and evaluator names used twice', async () => {
    expect(await issuesOf(invalid('bad-evaluator.yaml'))).toEqual([
      {
        severity: 'error',
        line: 3,
        message: 'execution.evaluators[0] must be a mapping, not text ("contains")',
      },
      {
        severity: 'error',
        line: 9,
        caseId: 'evaluators',
        message: 'execution.evaluators[0] is missing required key "type"',
      },
      {
        severity: 'error',
        line: 10,
        caseId: 'evaluators',
        message: 'execution.evaluators[1].weight must be at least 0',
      },
      {
        severity: 'error',
        line: 11,
        caseId: 'evaluators',
        message: 'execution.evaluators[2].weight must be a number, not text ("heavy")',
      },
      {
        severity: 'error',
        line: 16,
        caseId: 'same-names',
        message: 'evaluator name "check" is used more than once (lines 15, 16)',
      },
    ]);
  });

  it('reports every wrong type in the file, each on its own line', async () => {
    expect(await issuesOf(invalid('wrong-types.yaml'))).toEqual([
      { severity: 'error', line: 1, message: 'description must be text, not a list' },
      { severity: 'error', line: 2, message: 'dataset must not be empty' },
      {
        severity: 'error',
        line: 4,
        message: 'execution.target must be text, not a whole number (5)',
      },
      {
        severity: 'error',
        line: 5,
        message: 'execution.threshold must be a number, not text ("high")',
      },
      {
        severity: 'error',
        line: 7,
        message: 'evalcases[0].id must be text, not a whole number (1)',
      },
      {
        severity: 'error',
        line: 10,
        caseId: 'typed',
        message: 'expected_outcome must be text, not a mapping',
      },
      {
        severity: 'error',
        line: 11,
        caseId: 'typed',
        message: 'conversation_id must be text, not a whole number (17)',
      },
      {
        severity: 'error',
        line: 12,
        caseId: 'typed',
        message: 'input_messages must be a list, not a mapping',
      },
      {
        severity: 'error',
        line: 13,
        caseId: 'typed',
        message: 'rubrics must be a list, not text ("")',
      },
    ]);
  });

  it('reports an unsupported $schema', async () => {
    const result = await loadEvalFile(invalid('unsupported-schema.yaml'));
    expect(result.issues.map(brief)).toEqual([
      {
        severity: 'error',
        line: 1,
        message: '$schema must be "agentv-eval-v2", not "agentv-eval-v1"',
      },
    ]);
    expect(result.issues[0]!.hint).toBe('use `$schema: agentv-eval-v2` or remove the line');
  });

  it('reports a missing attached file with every path tried', async () => {
    const result = await loadEvalFile(invalid('missing-file.yaml'), {
      repoRoot: fixtures,
      cwd: os.tmpdir(),
    });
    expect(result.issues.map(brief)).toEqual([
      {
        severity: 'error',
        line: 7,
        caseId: 'attach',
        message: `file "./nowhere/data.json" not found; tried ${[
          invalid('nowhere/data.json'),
          path.join(fixtures, 'nowhere/data.json'),
          path.join(os.tmpdir(), 'nowhere/data.json'),
        ].join(', ')}`,
      },
    ]);
  });

  it('warns about unknown keys at file, case, execution and message level', async () => {
    const result = await loadEvalFile(invalid('unknown-keys.yaml'));
    expect(result.value?.cases).toHaveLength(1);
    expect(result.issues.map((issue) => ({ ...brief(issue), hint: issue.hint }))).toEqual([
      {
        severity: 'warning',
        line: 1,
        message: 'unknown key "descripton" at the top level is ignored',
        hint: 'did you mean "description"?',
      },
      {
        severity: 'warning',
        line: 4,
        caseId: 'keys',
        message: 'unknown key "expected_outcom" is ignored',
        hint: 'did you mean "expected_outcome"?',
      },
      {
        severity: 'warning',
        line: 8,
        caseId: 'keys',
        message: 'unknown key "contnet" in input_messages[0] is ignored',
        hint: 'did you mean "content"?',
      },
      {
        severity: 'warning',
        line: 10,
        caseId: 'keys',
        message: 'unknown key "targt" in execution is ignored',
        hint: 'did you mean "target"?',
      },
    ]);
  });
});

describe('loadEvalFile: a misspelt list of cases', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('is an error, not a warning: its cases would not run', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-misspelt-'));
    const file = path.join(dir, 'suite.yaml');
    await writeFile(path.join(dir, 'cases.jsonl'), '{"id": "a", "question": "hi"}\n');
    await writeFile(
      file,
      `cases: ./cases.jsonl
evalcase:
  - { id: b, input_messages: [{ role: user, content: hi }] }
execution:
  evaluators: [{ type: contains, value: hi }]
`,
    );
    const result = await loadEvalFile(file);
    expect(result.issues.map((issue) => ({ ...brief(issue), hint: issue.hint }))).toEqual([
      {
        severity: 'error',
        line: 2,
        message: 'unknown key "evalcase" at the top level: what it holds would be left out',
        hint: 'did you mean "evalcases"?',
      },
    ]);
  });

  it('is the one error when it is the only list: the file is not also missing evalcases', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-misspelt-'));
    const errors = (text: string) => issuesOfFile(dir!, 'suite.yaml', text);
    const misspelt = (key: string, line: number, meant: string) => [
      {
        severity: 'error',
        line,
        message: `unknown key "${key}" at the top level: what it holds would be left out`,
        hint: `did you mean "${meant}"?`,
      },
    ];
    // A tests: file's list misspelt leaves an evalcases: file: its key is named as that format's.
    for (const key of ['test', 'Tests', 'tets']) {
      expect(
        await errors(
          `${key}:\n  - { id: a, input: hi, assertions: [{ type: contains, value: hi }] }\n`,
        ),
      ).toEqual(misspelt(key, 1, 'tests'));
    }
    expect(
      await errors('evalcase:\n  - { id: a, input_messages: [{ role: user, content: hi }] }\n'),
    ).toEqual(misspelt('evalcase', 1, 'evalcases'));
    // With no list under any name, the file is missing one.
    expect((await errors('description: x\n')).map((issue) => issue.message)).toEqual([
      'missing required key "evalcases"',
    ]);
  });
});

describe('loadEvalFile: a tests: file without tests', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('is told in its own words; a case file it cannot read is the one error, not also an empty list', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-no-tests-'));
    const grader = 'assertions: [{ type: contains, value: hi }]\n';
    const empty = {
      severity: 'error',
      line: 1,
      message: 'tests must have at least 1 entry',
      hint: 'add a `tests:` list with at least one test (`- id: ...`), or name a case file or folder (`tests: ./cases.jsonl`)',
    };
    expect(await issuesOfFile(dir, 'a.yaml', `tests: []\n${grader}`)).toEqual([empty]);
    // A case file named but empty says so.
    await writeFile(path.join(dir, 'empty.jsonl'), '');
    expect(await issuesOfFile(dir, 'b.yaml', `tests: ./empty.jsonl\n${grader}`)).toEqual([
      {
        severity: 'error',
        line: 1,
        message: '"./empty.jsonl" holds no tests',
        hint: 'add tests to it: one JSON object a line, a YAML list, or a folder of `<id>/case.yaml`',
      },
    ]);
    expect(
      (await issuesOfFile(dir, 'c.yaml', `tests: ./missing.jsonl\n${grader}`)).map(
        (issue) => issue.message,
      ),
    ).toEqual([
      `case file "./missing.jsonl" not found (resolved to ${path.join(dir, 'missing.jsonl')})`,
    ]);
  });
});

describe('loadEvalFile: a case that asks nothing', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("is reported in the words of where it is written: a tests: file's, a dataset record's", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-no-question-'));
    const errors = (name: string, text: string) => issuesOfFile(dir!, name, text);
    expect(
      await errors(
        'tests.yaml',
        'tests:\n  - id: a\n    criteria: greets\n    assertions: [{ type: contains, value: hi }]\n',
      ),
    ).toEqual([
      {
        severity: 'error',
        line: 2,
        caseId: 'a',
        message: 'missing required key "input"',
        hint: 'add `input:` with what to ask, e.g. `input: "What are your opening hours?"`',
      },
    ]);
    // Its other messages name its keys as it does (`input`, not `input_messages`).
    expect(
      (
        await errors(
          'roles.yaml',
          'tests:\n  - id: r\n    input: [{ role: bogus, content: hi }]\n    assertions: [{ type: contains, value: hi }]\n',
        )
      ).map((issue) => issue.message),
    ).toEqual(['input[0].role must be one of "system", "user", "assistant", "tool", not "bogus"']);
    await writeFile(path.join(dir, 'cases.jsonl'), '{"id": "b", "question": "hi"}\n{"id": "c"}\n');
    expect(
      await errors(
        'data.yaml',
        'cases: ./cases.jsonl\nexecution:\n  evaluators: [{ type: contains, value: hi }]\n',
      ),
    ).toEqual([
      {
        severity: 'error',
        line: 2,
        caseId: 'c',
        message: 'has no question',
        hint: 'give the record a `question` (or `input`) with the text to ask, or `input_messages`',
      },
    ]);
  });
});

describe('loadEvalFile: a misspelt list of evaluators', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('is an error in a case, its execution, a dataset line and the file execution when it holds graders: they would not run', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-misspelt-'));
    const file = path.join(dir, 'suite.yaml');
    await writeFile(
      path.join(dir, 'cases.jsonl'),
      '{"id": "c", "question": "hi", "evaluators": [{"type": "contains", "value": "hi"}]}\n' +
        '{"id": "d", "question": "hi", "Evaluator": [{"type": "contains", "value": "no"}]}\n' +
        '{"id": "f", "question": "hi", "evaluated": true}\n',
    );
    await writeFile(
      file,
      `execution:
  evaluators: [{ type: contains, value: hi }]
  evaluator: [{ type: contains, value: bye }]
cases: ./cases.jsonl
evalcases:
  - id: a
    input_messages: [{ role: user, content: hi }]
    evaluator: [{ type: contains, value: bye }]
  - id: b
    input_messages: [{ role: user, content: hi }]
    execution:
      evaluatorss: [{ type: contains, value: bye }]
  - id: e
    input_messages: [{ role: user, content: hi }]
    evaluation: manual-reviewed
    evaluator_ids: [first, second]
  - id: g
    input_messages: [{ role: user, content: hi }]
    rubric: [Says hello]
`,
    );
    const result = await loadEvalFile(file);
    const shown = result.issues.map((issue) => ({
      severity: issue.severity,
      at: `${path.basename(issue.file ?? '')}:${issue.line}`,
      message: issue.message,
    }));
    expect(shown).toEqual(
      expect.arrayContaining([
        {
          severity: 'error',
          at: 'suite.yaml:3',
          message: 'unknown key "evaluator" in execution: what it holds would be left out',
        },
        {
          severity: 'error',
          at: 'suite.yaml:8',
          message: 'unknown key "evaluator": what it holds would be left out',
        },
        {
          severity: 'error',
          at: 'suite.yaml:12',
          message: 'unknown key "evaluatorss" in execution: what it holds would be left out',
        },
        {
          severity: 'error',
          at: 'cases.jsonl:2',
          message: 'unknown key "Evaluator": what it holds would be left out (first on this line)',
        },
        {
          severity: 'error',
          at: 'suite.yaml:19',
          message: 'unknown key "rubric": what it holds would be left out',
        },
        // Keys that only look like it, holding no graders, stay warnings.
        {
          severity: 'warning',
          at: 'suite.yaml:15',
          message: 'unknown key "evaluation" is ignored',
        },
        {
          severity: 'warning',
          at: 'suite.yaml:16',
          message: 'unknown key "evaluator_ids" is ignored',
        },
        {
          severity: 'warning',
          at: 'cases.jsonl:3',
          message: 'unknown key "evaluated" is ignored (first on this line)',
        },
      ]),
    );
    expect(shown.filter((issue) => issue.severity === 'error')).toHaveLength(5);
  });

  it('in a tests: file is named as that format spells its keys: assertions, input, criteria', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-misspelt-'));
    const file = path.join(dir, 'suite.yaml');
    await writeFile(
      file,
      `tests:
  - id: a
    input: hi
    assertion: [{ type: contains, value: hi }]
  - id: b
    input: hi
    criteria: says hi
    colour: blue
    assertions: [{ type: contains, value: hi }]
  - id: c
    input: hi
    evaluator: [{ type: contains, value: hi }]
  - id: d
    input: hi
    asert: [{ type: contains, value: hi }]
`,
    );
    const result = await loadEvalFile(file, { partial: true });
    const shown = result.issues.map((issue) => ({
      severity: issue.severity,
      line: issue.line,
      message: issue.message,
      hint: issue.hint,
    }));
    const leftOut = (line: number, key: string) => ({
      severity: 'error',
      line,
      message: `unknown key "${key}": what it holds would be left out`,
      hint: 'did you mean "assertions"?',
    });
    expect(shown).toEqual([
      leftOut(4, 'assertion'),
      {
        severity: 'warning',
        line: 8,
        message: 'unknown key "colour" is ignored',
        hint: 'remove it, or use one of: id, simulated_user, conversation_id, tags, execution, rubrics, vars, workspace, trace, input, input_files, criteria, expected_output, assertions, metadata',
      },
      // Close to `evaluators` (which this format reads as an old spelling) or `assert`: named as
      // this format writes it.
      leftOut(12, 'evaluator'),
      leftOut(15, 'asert'),
    ]);
    // The cases whose graders are under a misspelt key are marked: that error is why they have none.
    expect(result.value?.cases.map((c) => [c.id, c.evaluatorsMisspelt ?? false])).toEqual([
      ['a', true],
      ['b', false],
      ['c', true],
      ['d', true],
    ]);
  });

  it("in a tests: file, a misspelt suite-level assertions: is an error, and its cases' reason", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-misspelt-'));
    const file = path.join(dir, 'suite.yaml');
    // `evaluators:` is this AgentV's own name for the list, not a tests: file's top-level key.
    for (const key of ['assertion', 'evaluators', 'evaluator']) {
      await writeFile(
        file,
        `${key}: [{ type: contains, value: hi }]
tests:
  - id: a
    input: hi
`,
      );
      const result = await loadEvalFile(file, { partial: true });
      expect(
        result.issues.map(({ severity, line, message, hint }) => ({
          severity,
          line,
          message,
          hint,
        })),
      ).toEqual([
        {
          severity: 'error',
          line: 1,
          message: `unknown key "${key}" at the top level: what it holds would be left out`,
          hint: 'did you mean "assertions"?',
        },
      ]);
      expect(result.value?.cases[0]?.sharedEvaluatorsInvalid).toBe(true);
    }
  });
});

describe('loadEvalFile: files in a project', () => {
  let root: string;
  afterEach(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  async function project(files: Record<string, string>): Promise<string> {
    root = await mkdtemp(path.join(os.tmpdir(), 'agentv-eval-'));
    await mkdir(path.join(root, '.git'));
    for (const [name, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, name)), { recursive: true });
      await writeFile(path.join(root, name), content);
    }
    return root;
  }

  const attaching = (file: string) =>
    `evalcases:\n  - id: a\n    input_messages:\n      - role: user\n        content:\n          - { type: file, value: ${file} }\n`;

  it('gives each case the file tags followed by its own, each once', async () => {
    const dir = await project({
      'evals/tags.yaml': [
        'tags: [smoke, billing]',
        'evalcases:',
        '  - { id: a, tags: [slow, smoke], input_messages: [{ role: user, content: hi }] }',
        '  - { id: b, input_messages: [{ role: user, content: hi }] }',
      ].join('\n'),
      'evals/untagged.yaml':
        'evalcases:\n  - { id: c, input_messages: [{ role: user, content: hi }] }\n',
    });
    const tagged = await loadEvalFile(path.join(dir, 'evals/tags.yaml'));
    expect(tagged.value!.cases.map((c) => c.tags)).toEqual([
      ['smoke', 'billing', 'slow'],
      ['smoke', 'billing'],
    ]);
    const untagged = await loadEvalFile(path.join(dir, 'evals/untagged.yaml'));
    expect(untagged.value!.cases[0]!.tags).toBeUndefined();
  });

  it('rejects tags that are not a list of strings, naming the line', async () => {
    const dir = await project({
      'evals/bad.yaml':
        'evalcases:\n  - id: a\n    tags: smoke\n    input_messages: [{ role: user, content: hi }]\n',
    });
    const result = await loadEvalFile(path.join(dir, 'evals/bad.yaml'));
    expect(result.value).toBeUndefined();
    expect(result.issues.map(brief)).toEqual([
      expect.objectContaining({ severity: 'error', line: 3, caseId: 'a' }),
    ]);
  });

  it('resolves a file next to the eval file before one in an ancestor', async () => {
    const dir = await project({
      'evals/suite/case.yaml': attaching('data.txt'),
      'evals/suite/data.txt': 'near',
      'evals/data.txt': 'far',
    });
    const result = await loadEvalFile(path.join(dir, 'evals/suite/case.yaml'));
    const block = result.value!.cases[0]!.inputMessages[0]!.content[0];
    expect(block).toMatchObject({ path: path.join(dir, 'evals/suite/data.txt') });
  });

  it('falls back to ancestors up to the repository root, then the cwd', async () => {
    const dir = await project({
      'evals/suite/case.yaml': attaching('shared/data.txt'),
      'shared/data.txt': 'at the root',
      'tools/only-here/x.txt': 'cwd',
    });
    const fromRoot = await loadEvalFile(path.join(dir, 'evals/suite/case.yaml'));
    expect(fromRoot.value!.cases[0]!.inputMessages[0]!.content[0]).toMatchObject({
      path: path.join(dir, 'shared/data.txt'),
    });

    await writeFile(path.join(dir, 'evals/cwd.yaml'), attaching('only-here/x.txt'));
    const fromCwd = await loadEvalFile(path.join(dir, 'evals/cwd.yaml'), {
      cwd: path.join(dir, 'tools'),
    });
    expect(fromCwd.value!.cases[0]!.inputMessages[0]!.content[0]).toMatchObject({
      path: path.join(dir, 'tools/only-here/x.txt'),
    });
  });

  it('refuses a file found in a current directory outside the project', async () => {
    const dir = await project({ 'evals/cwd.yaml': attaching('only-here/x.txt') });
    const other = await mkdtemp(path.join(os.tmpdir(), 'agentv-cwd-'));
    try {
      await mkdir(path.join(other, 'only-here'));
      await writeFile(path.join(other, 'only-here/x.txt'), 'cwd');
      const fromCwd = await loadEvalFile(path.join(dir, 'evals/cwd.yaml'), { cwd: other });
      expect(fromCwd.issues.map(brief)).toEqual([
        {
          severity: 'error',
          line: 6,
          caseId: 'a',
          message: `file "only-here/x.txt" resolves to ${path.join(other, 'only-here/x.txt')}, outside the project root ${dir}`,
        },
      ]);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('does not look above the repository root', async () => {
    const dir = await project({
      'inner/.git/HEAD': '',
      'inner/evals/case.yaml': attaching('top.txt'),
      'top.txt': 'x',
    });
    const result = await loadEvalFile(path.join(dir, 'inner/evals/case.yaml'), {
      cwd: path.join(dir, 'inner'),
    });
    expect(result.issues.map((issue) => issue.message)).toEqual([
      `file "top.txt" not found; tried ${path.join(dir, 'inner/evals/top.txt')}, ${path.join(dir, 'inner/top.txt')}`,
    ]);
  });

  it('treats a leading "/" as the repository root when no such absolute file exists', async () => {
    const dir = await project({
      'evals/case.yaml': attaching('/docs/guide.md'),
      'docs/guide.md': 'guide',
    });
    const result = await loadEvalFile(path.join(dir, 'evals/case.yaml'));
    expect(result.value!.cases[0]!.inputMessages[0]!.content[0]).toMatchObject({
      path: path.join(dir, 'docs/guide.md'),
    });
  });

  it('detects guidelines relative to the repository root', async () => {
    const dir = await project({
      'evals/case.yaml': attaching('../instructions/policy.md'),
      'instructions/policy.md': 'policy',
    });
    const result = await loadEvalFile(path.join(dir, 'evals/case.yaml'));
    expect(result.value!.cases[0]!.inputMessages[0]!.content[0]).toMatchObject({
      isGuideline: true,
    });
  });

  it('reports the right lines in large files, which are parsed case by case', async () => {
    const lines = ['description: many cases', 'evalcases:'];
    for (let index = 0; index < 4000; index++) {
      const role = index === 3500 ? 'robot' : 'user';
      lines.push(
        `  - id: case-${index}`,
        '    input_messages:',
        `      - role: ${role}`,
        `        content: Question number ${index} padded to make the file large enough.`,
      );
    }
    const dir = await project({ 'large.yaml': `${lines.join('\n')}\n` });
    const result = await loadEvalFile(path.join(dir, 'large.yaml'));
    expect(lines.join('\n').length).toBeGreaterThan(256 * 1024);
    expect(result.issues.map(brief)).toEqual([
      {
        severity: 'error',
        line: 3 + 3500 * 4 + 2,
        caseId: 'case-3500',
        message:
          'input_messages[0].role must be one of "system", "user", "assistant", "tool", not "robot"',
      },
    ]);
    await writeFile(path.join(dir, 'large.yaml'), `${lines.join('\n').replace('robot', 'user')}\n`);
    const valid = await loadEvalFile(path.join(dir, 'large.yaml'));
    expect(valid.value!.cases).toHaveLength(4000);
    expect(valid.value!.cases[3999]!.line).toBe(3 + 3999 * 4);
  });

  it('refuses binary and oversized files', async () => {
    const dir = await project({ 'binary.yaml': 'evalcases:\u0000\n' });
    const binary = await loadEvalFile(path.join(dir, 'binary.yaml'));
    expect(binary.issues.map((issue) => issue.message)).toEqual([
      'eval file is a binary file (it contains NUL bytes)',
    ]);

    const huge = path.join(dir, 'huge.yaml');
    await writeFile(huge, '');
    await truncate(huge, 51 * 1024 * 1024);
    const result = await loadEvalFile(huge);
    expect(result.issues.map((issue) => issue.message)).toEqual([
      'eval file is too large (51.0 MB; the limit is 50 MB)',
    ]);
  });
});
