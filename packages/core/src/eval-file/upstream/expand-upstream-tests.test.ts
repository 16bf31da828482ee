import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadEvalFile } from '../load-eval-file.js';

// `tests:` naming case files, as AgentV 4.x eval files may.

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-upstream-tests-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function load(text: string, files: Record<string, string> = {}) {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
  const file = path.join(dir, 'suite.eval.yaml');
  await writeFile(file, text);
  const result = await loadEvalFile(file, { cwd: dir, repoRoot: dir });
  const issues = result.issues.map((issue) => ({
    severity: issue.severity,
    line: issue.line,
    message: issue.message,
  }));
  return {
    cases: result.value?.cases ?? [],
    issues,
    files: result.issues.map((issue) => issue.file),
  };
}

const JSONL = [
  '{"id": "j1", "input": "What is 2+2?", "criteria": "Says 4", "assertions": [{"type": "contains", "value": "4"}]}',
  '',
  '{"id": "j2", "input": [{"role": "user", "content": "Hi"}], "expected_output": "Hello"}',
].join('\n');

describe('tests: naming case files (AgentV 4.x)', () => {
  it('reads a JSONL file of cases in the tests: format', async () => {
    const { cases, issues } = await load('tests: ./cases.jsonl\n', { 'cases.jsonl': JSONL });
    expect(issues).toEqual([]);
    expect(cases.map((one) => one.id)).toEqual(['j1', 'j2']);
    expect(cases[0]).toMatchObject({
      expectedOutcome: 'Says 4',
      evaluators: [{ type: 'contains', value: '4' }],
    });
    expect(cases[1]!.expectedMessages).toEqual([
      { role: 'assistant', content: [{ type: 'text', value: 'Hello' }] },
    ]);
  });

  it('splices file:// entries (YAML and JSONL) into the list, in order', async () => {
    const { cases, issues } = await load(
      [
        'tests:',
        '  - id: inline',
        '    input: Hello',
        '    criteria: Greets',
        '  - file://cases/more.yaml',
        '  - file://cases/more.jsonl',
      ].join('\n'),
      {
        'cases/more.yaml': '- id: y1\n  input: A\n  criteria: B\n',
        'cases/more.jsonl': JSONL,
      },
    );
    expect(issues).toEqual([]);
    expect(cases.map((one) => [one.id, one.line])).toEqual([
      ['inline', 2],
      ['y1', 5],
      ['j1', 6],
      ['j2', 6],
    ]);
  });

  it('reads a folder of <id>/case.yaml, the folder naming the case', async () => {
    const { cases, issues } = await load('tests: ./cases\n', {
      'cases/b-second/case.yaml': 'input: Two\ncriteria: Second\n',
      'cases/a-first/case.yaml': 'id: first\ninput: One\ncriteria: First\n',
      'cases/notes/readme.md': 'not a case',
    });
    expect(issues).toEqual([
      {
        severity: 'warning',
        line: 1,
        message: 'folder "cases/notes" has no case.yaml and is skipped',
      },
    ]);
    expect(cases.map((one) => one.id)).toEqual(['first', 'b-second']);
  });

  it('reports a missing file and a pattern at the entry naming them, a bad JSONL line at that line', async () => {
    const { issues, files } = await load(
      ['tests:', '  - file://nowhere.yaml', '  - file://cases/*.yaml', '  - file://bad.jsonl'].join(
        '\n',
      ),
      { 'bad.jsonl': '{"id": "ok", "input": "x", "criteria": "y"}\nnot json\n' },
    );
    expect(issues).toEqual([
      // At its own line of the JSONL file, named as the eval file is (issues are sorted by file).
      expect.objectContaining({
        severity: 'error',
        line: 2,
        message: expect.stringMatching(/^invalid JSON: /),
      }),
      expect.objectContaining({
        severity: 'error',
        line: 2,
        message: expect.stringMatching(/^case file "nowhere.yaml" not found/),
      }),
      expect.objectContaining({
        severity: 'error',
        line: 3,
        message: 'case files by pattern ("cases/*.yaml") are not supported',
      }),
    ]);
    expect(files).toEqual([
      path.join(dir, 'bad.jsonl'),
      path.join(dir, 'suite.eval.yaml'),
      path.join(dir, 'suite.eval.yaml'),
    ]);
  });
});
