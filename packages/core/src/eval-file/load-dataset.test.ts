import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatIssue } from '../errors/input-issue.js';
import { loadEvalFile } from './load-eval-file.js';

let root: string | undefined;
// Every folder a test made (some tests load twice), removed after it.
const roots: string[] = [];
afterEach(async () => {
  for (const made of roots.splice(0)) await rm(made, { recursive: true, force: true });
  root = undefined;
});

/** Writes `files` to a temp folder and loads `evals/suite.yaml` from it, as the CLI does (cwd = root). */
async function load(files: Record<string, string>) {
  root = await mkdtemp(path.join(os.tmpdir(), 'agentv-dataset-'));
  roots.push(root);
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), content);
  }
  return loadEvalFile('evals/suite.yaml', { cwd: root, repoRoot: root });
}

const HEADER = `execution:
  target: agent
  threshold: 0.5
  evaluators:
    - { type: contains, value: ok }
`;

describe('loadEvalFile with a JSONL dataset', () => {
  it('makes the same case of a plain record as of one the schema has to read', async () => {
    const plain = {
      id: 'plain',
      input_messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'one' },
      ],
      expected_outcome: 'says one',
      conversation_id: 'conv-1',
    };
    // `execution: {}` changes nothing in the case, but takes the schema's way.
    const checked = { ...plain, id: 'checked', execution: {} };
    const result = await load({
      'evals/suite.yaml': `tags: [smoke, smoke, fast]
execution:
  targets: [agent, other]
  judge_target: judge
  threshold: 0.5
  evaluators:
    - { type: contains, value: ok }
cases: ./cases.jsonl
`,
      'evals/cases.jsonl': `${JSON.stringify(plain)}\n${JSON.stringify(checked)}\n`,
    });
    expect(result.issues).toEqual([]);
    const [first, second] = result.value!.cases;
    expect(first).toEqual({ ...second, id: 'plain' });
    expect(first).toMatchObject({ tags: ['smoke', 'fast'], targets: ['agent', 'other'] });
  });

  it('counts lines ended by \\n, \\r\\n or a lone \\r, as readline does', async () => {
    const good = (id: string) =>
      JSON.stringify({ id, input_messages: [{ role: 'user', content: id }] });
    const result = await load({
      'evals/suite.yaml': `${HEADER}cases: ./cases.jsonl\n`,
      'evals/cases.jsonl': `${good('a')}\r${good('b')}\r\n\n${good('c')}\n{bad\r\n${good('d')}`,
    });
    expect(result.issues.map((issue) => issue.line)).toEqual([5]);
  });

  it('splits lines the same where the file is read in several chunks', async () => {
    // A line of `length` characters (the file is read 64 KiB at a time).
    const padded = (id: string, length: number) => {
      const empty = JSON.stringify({ id, input_messages: [{ role: 'user', content: '' }] });
      return JSON.stringify({
        id,
        input_messages: [{ role: 'user', content: 'x'.repeat(length - empty.length) }],
      });
    };
    const chunk = 64 * 1024;
    const text = [
      // \r\n split between the first chunk and the second,
      `${padded('a', chunk - 1)}\r\n`,
      // a lone \r ending the second chunk,
      `${padded('b', chunk - 2)}\r`,
      // a line running into the fourth chunk.
      `${padded('c', chunk + 100)}\n`,
      // A warning names the line it is on.
      `${JSON.stringify({ id: 'e', input_messages: [{ role: 'user', content: 'e' }], colour: 1 })}\n`,
      padded('d', 80),
    ].join('');
    const result = await load({
      'evals/suite.yaml': `${HEADER}cases: ./cases.jsonl\n`,
      'evals/cases.jsonl': text,
    });
    expect(result.issues.map((issue) => `${issue.severity} ${issue.line}`)).toEqual(['warning 4']);
    expect(result.value?.cases.map((evalCase) => evalCase.id)).toEqual(['a', 'b', 'c', 'e', 'd']);
  });

  it('reads a record that only looks plain through the schema, with its problems located', async () => {
    const lines = [
      { id: 'a', input_messages: [{ role: 'robot', content: 'x' }] },
      { id: '', input_messages: [{ role: 'user', content: 'x' }] },
      { id: 'c', input_messages: [] },
      { id: 'd', input_messages: [{ role: 'user', content: 'x', colour: 'red' }] },
    ];
    const result = await load({
      'evals/suite.yaml': `${HEADER}cases: ./cases.jsonl\n`,
      'evals/cases.jsonl': `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`,
    });
    const shown = result.issues.map((issue) => `${issue.severity} ${issue.line}`);
    expect(shown).toEqual(['error 1', 'error 2', 'error 3', 'warning 4']);
  });

  it('loads one case per line with the file defaults, after the inline cases', async () => {
    const lines = [
      JSON.stringify({ id: 'j1', input_messages: [{ role: 'user', content: 'one' }] }),
      '',
      JSON.stringify({
        input_messages: [{ role: 'user', content: 'two' }],
        expected_outcome: 'says two',
        rubrics: ['mentions two'],
        vars: { lang: 'en' },
      }),
    ];
    const result = await load({
      'evals/suite.yaml': `${HEADER}cases: ./data/cases.jsonl
evalcases:
  - id: inline
    input_messages: [{ role: user, content: hi }]
`,
      'evals/data/cases.jsonl': `\uFEFF${lines.join('\r\n')}\r\n`,
    });
    expect(result.issues).toEqual([]);
    const [inline, first, second] = result.value!.cases;
    expect(inline!.id).toBe('inline');
    expect(first).toMatchObject({
      id: 'j1',
      dataset: 'suite',
      target: 'agent',
      threshold: 0.5,
      inputMessages: [{ role: 'user', content: [{ type: 'text', value: 'one' }] }],
      evaluators: [{ name: 'contains', type: 'contains', value: 'ok' }],
    });
    expect(first!.line).toBeUndefined();
    // No `id`: the line the record is on.
    expect(second).toMatchObject({
      id: 'line-3',
      expectedOutcome: 'says two',
      rubrics: ['mentions two'],
      vars: { lang: 'en' },
    });
    expect(second!.evaluators.map((config) => config.type)).toEqual(['contains', 'rubric']);
    // The file's evaluators are shared, not copied per case.
    expect(first!.evaluators).toBe(inline!.evaluators);
    expect(result.value!.cases).toHaveLength(3);
  });

  it('reports invalid JSON, a record failing the schema and a duplicate id at file:line', async () => {
    const result = await load({
      'evals/suite.yaml': `${HEADER}cases: cases.jsonl
evalcases:
  - id: inline
    input_messages: [{ role: user, content: hi }]
`,
      'evals/cases.jsonl': [
        JSON.stringify({ id: 'a', input_messages: [{ role: 'user', content: 'x' }] }),
        '{"id": "b", "input_messages": [',
        JSON.stringify({ id: 'c', input_messages: [{ role: 'robot', content: 'x' }] }),
        JSON.stringify({ id: 'inline', input_messages: [{ role: 'user', content: 'x' }] }),
        JSON.stringify({ id: 'a', input_messages: [{ role: 'user', content: 'x' }] }),
        '[1, 2]',
      ].join('\n'),
    });
    expect(result.value).toBeUndefined();
    const shown = result.issues.map(formatIssue);
    expect(shown).toEqual([
      expect.stringMatching(/^evals[/\\]cases\.jsonl:2:1: invalid JSON: .* \(hint: write one case/),
      expect.stringMatching(
        /^evals[/\\]cases\.jsonl:3:1: case "c": input_messages\[0\]\.role must be one of/,
      ),
      expect.stringMatching(
        /^evals[/\\]cases\.jsonl:4:1: case "inline": duplicate case id "inline" \(first used at evals[/\\]suite\.yaml:8\)/,
      ),
      expect.stringMatching(
        /^evals[/\\]cases\.jsonl:5:1: case "a": duplicate case id "a" \(first used at evals[/\\]cases\.jsonl:1\)/,
      ),
      expect.stringMatching(/^evals[/\\]cases\.jsonl:6:1: a dataset line must be a JSON object/),
    ]);
  });

  it('reports a missing dataset and an unsupported extension at the `cases:` line', async () => {
    const missing = await load({ 'evals/suite.yaml': `${HEADER}cases: ./nope.jsonl\n` });
    expect(missing.issues.map(formatIssue)).toEqual([
      expect.stringMatching(/^evals[/\\]suite\.yaml:6:\d+: dataset \.\/nope\.jsonl not found/),
    ]);
    const other = await load({ 'evals/suite.yaml': `${HEADER}cases: ./cases.txt\n` });
    expect(other.issues.map(formatIssue)).toEqual([
      expect.stringContaining('dataset "./cases.txt" is neither .jsonl nor .csv'),
    ]);
  });

  it('refuses a record that brings a code_judge, as evaluator, composite member or aggregator', async () => {
    const records = [
      { id: 'plain', question: 'ok?', evaluators: [{ type: 'contains', value: 'ok' }] },
      { id: 'own', question: 'ok?', evaluators: [{ type: 'code_judge', script: 'touch pwned' }] },
      {
        id: 'nested',
        question: 'ok?',
        execution: {
          evaluators: [
            {
              name: 'both',
              type: 'composite',
              evaluators: [{ name: 'inner', type: 'code_judge', script: 'touch pwned' }],
              aggregator: { type: 'code_judge', script: 'touch pwned' },
            },
          ],
        },
      },
    ];
    const result = await load({
      'evals/suite.yaml': `${HEADER}cases: ./cases.jsonl\n`,
      'evals/cases.jsonl': `${records.map((record) => JSON.stringify(record)).join('\n')}\n`,
    });
    expect(result.issues.map(formatIssue)).toEqual([
      expect.stringMatching(
        /^evals[/\\]cases\.jsonl:2:1: case "own": a dataset record cannot bring a code_judge grader \("code_judge"\): it would run a command written in the dataset/,
      ),
      expect.stringMatching(
        /^evals[/\\]cases\.jsonl:3:1: case "nested": a dataset record cannot bring a code_judge grader \("both\.members\.inner"\)/,
      ),
      expect.stringMatching(/^evals[/\\]cases\.jsonl:3:1: .*\("both\.aggregator"\)/),
    ]);
    expect(result.issues[0]!.hint).toBe(
      "write code judges in the eval file's `execution.evaluators`, which grade every dataset record without evaluators of its own",
    );
  });

  it('refuses a record attaching a file outside the project, at its line', async () => {
    const result = await load({
      'evals/suite.yaml': `${HEADER}cases: ./cases.jsonl\n`,
      'evals/cases.jsonl': `${JSON.stringify({
        id: 'leak',
        input_messages: [{ role: 'user', content: [{ type: 'file', value: '../secret.txt' }] }],
      })}\n`,
      'secret.txt': 'secret',
    });
    // No .agentv/ or .git in this temp folder: the project root is the eval file's folder.
    expect(result.issues.map(formatIssue)).toEqual([
      expect.stringMatching(
        /^evals[/\\]cases\.jsonl:1:1: case "leak": file "\.\.\/secret\.txt" resolves to .*secret\.txt, outside the project root .*evals \(no \.agentv\/ folder/,
      ),
    ]);
  });

  it('refuses a dataset outside the project, at the `cases:` line', async () => {
    const result = await load({
      'evals/.agentv/targets.yaml': 'targets: []\n',
      'evals/suite.yaml': `${HEADER}cases: ../shared/cases.jsonl\n`,
      'shared/cases.jsonl': `${JSON.stringify({ id: 'a', question: 'hi' })}\n`,
    });
    expect(result.issues.map(formatIssue)).toEqual([
      expect.stringMatching(
        /^evals[/\\]suite\.yaml:6:\d+: dataset \.\.\/shared\/cases\.jsonl resolves to .*shared[/\\]cases\.jsonl, outside the project root .*evals \(hint: move the file/,
      ),
    ]);
  });

  it('still needs inline cases or a dataset', async () => {
    const result = await load({ 'evals/suite.yaml': HEADER });
    expect(result.issues.map((issue) => issue.message)).toEqual([
      'missing required key "evalcases"',
    ]);
    expect(result.issues[0]!.hint).toContain('cases: ./cases.jsonl');
  });
});

describe('loadEvalFile with a CSV dataset', () => {
  it('maps id, question, expected_outcome, reference_answer; other columns go to vars', async () => {
    const csv =
      '\uFEFFid,Question,expected,answer,topic\r\n' +
      'c1,"Hello, world",greets,"hi",greeting\r\n' +
      ',"She said ""refund""\r\nplease",,,billing\r\n';
    const result = await load({
      'evals/suite.yaml': `${HEADER}cases: cases.csv\n`,
      'evals/cases.csv': csv,
    });
    expect(result.issues).toEqual([]);
    const [first, second] = result.value!.cases;
    expect(first).toMatchObject({
      id: 'c1',
      expectedOutcome: 'greets',
      inputMessages: [{ role: 'user', content: [{ type: 'text', value: 'Hello, world' }] }],
      expectedMessages: [{ role: 'assistant', content: [{ type: 'text', value: 'hi' }] }],
      vars: { topic: 'greeting' },
      target: 'agent',
    });
    expect(second).toMatchObject({
      id: 'line-3',
      inputMessages: [
        { role: 'user', content: [{ type: 'text', value: 'She said "refund"\r\nplease' }] },
      ],
      expectedMessages: [],
      vars: { topic: 'billing' },
    });
    expect(second!.expectedOutcome).toBeUndefined();
  });

  it('reports a row with the wrong column count, a duplicate id and an unclosed quote', async () => {
    const result = await load({
      'evals/suite.yaml': `${HEADER}cases: cases.csv\n`,
      'evals/cases.csv': 'id,question\nc1,"a, b"\nc2,one,two\nc1,again\nc4, \nc3,"never closed\n',
    });
    expect(result.value).toBeUndefined();
    expect(result.issues.map(formatIssue)).toEqual([
      'evals/cases.csv:3:1: the row has 3 fields, the header has 2 (hint: quote fields that contain commas, quotes or line breaks ("a, b"; "say ""hi"""))',
      'evals/cases.csv:4:1: case "c1": duplicate case id "c1" (first used at evals/cases.csv:2) (hint: case ids must be unique within an eval file and its dataset; rename one of them)',
      'evals/cases.csv:5:1: the question is empty (hint: write what the agent is asked in the question column, or remove the row)',
      'evals/cases.csv:6:1: a quoted field starting in this row is never closed (hint: close the quote; a quote inside a quoted field is written twice (""))',
    ]);
  });

  it('needs a question column', async () => {
    const result = await load({
      'evals/suite.yaml': `${HEADER}cases: cases.csv\n`,
      'evals/cases.csv': 'id,prompt\nc1,hello\n',
    });
    expect(result.issues.map(formatIssue)).toEqual([
      expect.stringContaining('evals/cases.csv:1:1: the header has no "question" column'),
    ]);
  });
});

describe('loadEvalFile with a JSONL dataset and unknown keys', () => {
  it('warns about each unknown key once, at the first line that has it', async () => {
    const line = (id: string) =>
      JSON.stringify({
        id,
        input_messages: [{ role: 'user', content: 'x' }],
        expected_outcom: 'y',
      });
    const result = await load({
      'evals/suite.yaml': `${HEADER}cases: cases.jsonl\n`,
      'evals/cases.jsonl': `${line('a')}\n${line('b')}\n`,
    });
    expect(result.value!.cases).toHaveLength(2);
    expect(result.issues.map(formatIssue)).toEqual([
      expect.stringContaining('evals/cases.jsonl:1'),
    ]);
    expect(result.issues[0]!.severity).toBe('warning');
    expect(formatIssue(result.issues[0]!)).toContain('expected_outcom');
  });

  it("suggests a dataset line's own question key for a misspelling of it", async () => {
    const result = await load({
      'evals/suite.yaml': `${HEADER}cases: cases.jsonl\n`,
      'evals/cases.jsonl': `${JSON.stringify({ id: 'a', qestion: 'hi' })}\n`,
    });
    const warning = result.issues.find((issue) => issue.message.includes('qestion'));
    expect(warning?.hint).toBe('did you mean "question"?');
  });
});
