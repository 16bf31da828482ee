import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadEvalFile } from './load-eval-file.js';

let root: string | undefined;
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

/**
 * Writes an eval file whose one case is graded by `evaluators` (YAML flow list), plus `files`
 * (those named in `executable` with execute permission).
 */
async function load(
  evaluators: string,
  files: Record<string, string> = {},
  executable: readonly string[] = [],
) {
  root = await mkdtemp(path.join(os.tmpdir(), 'agentv-judge-files-'));
  await mkdir(path.join(root, '.git'));
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), content);
    if (executable.includes(name)) await chmod(path.join(root, name), 0o755);
  }
  const evalFile = path.join(root, 'evals', 'a.yaml');
  await mkdir(path.dirname(evalFile), { recursive: true });
  await writeFile(
    evalFile,
    `evalcases:\n  - id: one\n    input_messages: [{ role: user, content: hi }]\n    evaluators:\n${evaluators}`,
  );
  const result = await loadEvalFile(evalFile, { cwd: root });
  return {
    result,
    brief: result.issues.map(({ line, column, caseId, message, hint }) => ({
      line,
      column,
      caseId,
      message,
      hint,
    })),
  };
}

describe('code_judge file checks', () => {
  it('reports a missing script run by an interpreter, on the script key', async () => {
    const { brief } = await load(
      '      - { name: tools, type: code_judge, script: node ../judges/missing.mjs }\n',
    );
    expect(brief).toEqual([
      {
        line: 5,
        column: 50,
        caseId: 'one',
        message: `evaluator "tools": script file ../judges/missing.mjs not found (resolved to ${path.join(root!, 'judges', 'missing.mjs')})`,
        hint: `fix the path in "script"; it is relative to the eval file's directory`,
      },
    ]);
  });

  it('accepts scripts that exist, by path, by interpreter and as an argv list', async () => {
    const { result } = await load(
      [
        '      - { name: a, type: code_judge, script: ./judge.sh }',
        '      - { name: b, type: code_judge, script: "python3 \'judges/x y.py\' --strict" }',
        '      - { name: c, type: code_judge, script: [node, ../judges/j.mjs] }',
        '',
      ].join('\n'),
      { 'evals/judge.sh': '', 'evals/judges/x y.py': '', 'judges/j.mjs': '' },
      ['evals/judge.sh'],
    );
    expect(result.issues).toEqual([]);
    expect(result.value?.cases[0]?.evaluators.map((evaluator) => evaluator.name)).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it('reports a script run as the command that is not executable; one run by an interpreter need not be', async () => {
    const { brief } = await load(
      [
        '      - { name: a, type: code_judge, script: ./judge.mjs }',
        '      - { name: b, type: code_judge, script: node ./judge.mjs }',
        '',
      ].join('\n'),
      { 'evals/judge.mjs': '' },
    );
    expect(brief).toEqual([
      {
        line: 5,
        column: 46,
        caseId: 'one',
        message:
          'evaluator "a": script file ./judge.mjs is not executable, so it cannot be run as the command',
        hint: 'make it executable (chmod +x ./judge.mjs), or name its interpreter first, e.g. "node ./judge.mjs"',
      },
    ]);
  });

  it('points at the list item of an argv script and resolves against the cwd option', async () => {
    const { brief } = await load(
      '      - { name: j, type: code_judge, cwd: ../judges, script: [node, ./gone.mjs] }\n',
      { 'judges/here.mjs': '' },
    );
    expect(brief).toMatchObject([
      {
        line: 5,
        caseId: 'one',
        message: `evaluator "j": script file ./gone.mjs not found (resolved to ${path.join(root!, 'judges', 'gone.mjs')})`,
        hint: 'fix the path in "script"; it is relative to its cwd',
      },
    ]);
    expect(brief[0]!.column).toBe(69);
  });

  it('reports a cwd that does not exist', async () => {
    const { brief } = await load(
      '      - { name: j, type: code_judge, cwd: ./nope, script: node judge.mjs }\n',
    );
    expect(brief).toMatchObject([
      {
        line: 5,
        caseId: 'one',
        message: `evaluator "j": cwd directory ./nope does not exist (resolved to ${path.join(root!, 'evals', 'nope')})`,
      },
    ]);
  });

  it('leaves commands on PATH, inline code and shell expressions alone', async () => {
    const { result } = await load(
      [
        '      - { name: a, type: code_judge, script: my-judge --strict }',
        '      - { name: b, type: code_judge, script: "node -e \'process.exit(0)\'" }',
        '      - { name: c, type: code_judge, script: "node $JUDGE_DIR/judge.mjs" }',
        '      - { name: d, type: code_judge, script: /usr/bin/env true }',
        '      - { name: e, type: contains, value: ./not-a-file }',
        '',
      ].join('\n'),
    );
    expect(result.issues).toEqual([]);
  });

  it('checks file-level evaluators once, without a case id', async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'agentv-judge-files-'));
    const evalFile = path.join(root, 'a.yaml');
    await writeFile(
      evalFile,
      [
        'execution:',
        '  evaluators: [{ name: t, type: code_judge, script: node ./judge.mjs }]',
        'evalcases:',
        '  - { id: one, input_messages: [{ role: user, content: hi }] }',
        '  - { id: two, input_messages: [{ role: user, content: hi }] }',
        '',
      ].join('\n'),
    );
    const result = await loadEvalFile(evalFile, { cwd: root, repoRoot: root });
    expect(result.issues.map(({ line, caseId, message }) => ({ line, caseId, message }))).toEqual([
      {
        line: 2,
        caseId: undefined,
        message: `execution.evaluators: evaluator "t": script file ./judge.mjs not found (resolved to ${path.join(root, 'judge.mjs')})`,
      },
    ]);
  });

  it('refuses prompt and schema files outside the project, not code_judge scripts', async () => {
    const outside = await mkdtemp(path.join(os.tmpdir(), 'agentv-judge-outside-'));
    try {
      await writeFile(path.join(outside, 'judge.md'), 'grade {{ candidate_answer }}');
      await writeFile(path.join(outside, 'schema.json'), '{}');
      await writeFile(path.join(outside, 'judge.mjs'), '');
      const { brief } = await load(
        [
          `      - { name: p, type: llm_judge, prompt: ${path.join(outside, 'judge.md')} }`,
          `      - { name: s, type: json_schema, schema: ${path.join(outside, 'schema.json')} }`,
          `      - { name: c, type: code_judge, script: node ${path.join(outside, 'judge.mjs')} }`,
          '',
        ].join('\n'),
      );
      expect(brief.map(({ line, message }) => ({ line, message }))).toEqual([
        {
          line: 5,
          message: `evaluator "p": prompt file ${path.join(outside, 'judge.md')} is outside the project root ${root}`,
        },
        {
          line: 6,
          message: `evaluator "s": schema file ${path.join(outside, 'schema.json')} is outside the project root ${root}`,
        },
      ]);
      expect(brief[0]!.hint).toContain('allowed_file_roots');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
