import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import { evaluatorKeyIssues } from './evaluator-keys.js';
import { createEvaluatorRegistry, defaultEvaluators } from './evaluator-registry.js';
import { fileEvaluator } from './file.js';
import { makeConfig, makeContext } from './test-support/make-context.js';
import { makeOutsideFolder, makeWorkspace } from './test-support/make-workspace.js';

const check = (options: Record<string, unknown>) => makeConfig('file', options);

const messagesOf = (issues: { message: string }[] | undefined) =>
  issues?.map((issue) => issue.message);

function grade(files: Record<string, string | Buffer>, options: Record<string, unknown>) {
  return fileEvaluator.evaluate(check(options), makeContext({ workspace: makeWorkspace(files) }));
}

describe('file grader', () => {
  it('checks that a file exists, or is absent', async () => {
    expect(await grade({ 'NOTES.md': '# Notes\n' }, { path: 'NOTES.md', exists: true })).toEqual({
      score: 1,
      hits: ['"NOTES.md" exists'],
      misses: [],
    });
    expect(await grade({}, { path: 'NOTES.md', exists: true })).toEqual({
      score: 0,
      hits: [],
      misses: ['"NOTES.md" does not exist'],
    });
    expect(await grade({}, { path: 'debug.log', absent: true })).toEqual({
      score: 1,
      hits: ['"debug.log" is absent'],
      misses: [],
    });
    expect(await grade({ 'debug.log': 'x' }, { path: 'debug.log', absent: true })).toEqual({
      score: 0,
      hits: [],
      misses: ['"debug.log" exists (it is there), and must be absent'],
    });
    expect((await grade({ 'src/lib/a.js': '' }, { path: 'src/lib', exists: true })).hits).toEqual([
      '"src/lib" exists',
    ]);
  });

  it('requires every check to hold, each a hit or a miss', async () => {
    const files = { 'NOTES.md': '# Notes\nFixed the off-by-one in sum().\n' };
    const passing = await grade(files, {
      path: 'NOTES.md',
      exists: true,
      contains: ['Fixed', 'sum()'],
      regex: '^# Notes$',
      flags: 'm',
    });
    expect(passing).toEqual({
      score: 1,
      hits: [
        '"NOTES.md" exists',
        '"NOTES.md" contains "Fixed"',
        '"NOTES.md" contains "sum()"',
        '"NOTES.md" matches /^# Notes$/m at "# Notes"',
      ],
      misses: [],
    });
    const failing = await grade(files, {
      path: 'NOTES.md',
      contains: ['Fixed', 'tests pass'],
      regex: 'bug #\\d+',
    });
    expect(failing).toEqual({
      score: 0,
      hits: ['"NOTES.md" contains "Fixed"'],
      misses: ['"NOTES.md" does not contain "tests pass"', '"NOTES.md" does not match /bug #\\d+/'],
    });
    expect((await grade({}, { path: 'NOTES.md', contains: 'x', regex: 'y' })).misses).toEqual([
      '"NOTES.md" does not exist',
    ]);
  });

  it('compares the whole content, ignoring one final newline on either side', async () => {
    const files = { 'out.txt': 'one\ntwo\n' };
    expect((await grade(files, { path: 'out.txt', equals: 'one\ntwo' })).score).toBe(1);
    expect(
      (await grade({ 'out.txt': 'one\r\ntwo\r\n' }, { path: 'out.txt', equals: 'one\r\ntwo\n' }))
        .score,
    ).toBe(1);
    expect(await grade(files, { path: 'out.txt', equals: 'one\nthree\n' })).toEqual({
      score: 0,
      hits: [],
      misses: [
        '"out.txt" differs from the expected content at line 2: expected "three", found "two"',
      ],
    });
    expect((await grade(files, { path: 'out.txt', equals: 'one\ntwo\n\n' })).misses).toEqual([
      '"out.txt" differs from the expected content at line 3: expected "", found the end',
    ]);
  });

  it('validates a JSON file against a schema, inline or from a file next to the eval file', async () => {
    const schema = {
      type: 'object',
      required: ['version'],
      properties: { version: { type: 'string' } },
    };
    expect(
      await grade(
        { 'package.json': '{"version": "1.2.0"}' },
        { path: 'package.json', json_schema: schema },
      ),
    ).toEqual({ score: 1, hits: ['"package.json" matches the JSON schema'], misses: [] });
    expect(
      (
        await grade(
          { 'package.json': '{"version": 2}' },
          { path: 'package.json', json_schema: schema },
        )
      ).misses,
    ).toEqual(['"package.json": Schema violation at /version: must be string']);
    expect(
      (
        await grade(
          { 'package.json': '{"version": ' },
          { path: 'package.json', json_schema: schema },
        )
      ).misses,
    ).toEqual([expect.stringMatching(/^"package.json" is not valid JSON: /)]);
    const fromFile = await grade(
      { 'answer.json': '{"order_id": 42, "status": "refunded"}' },
      { path: 'answer.json', json_schema: 'graders/answer-schema.json' },
    );
    expect(fromFile.score).toBe(1);
  });

  it('does not read binary files, special files or directories as text', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
    expect(
      await grade({ 'logo.png': png }, { path: 'logo.png', exists: true, contains: 'PNG' }),
    ).toEqual({
      score: 0,
      hits: ['"logo.png" exists'],
      misses: ['"logo.png" is a binary file; contains, regex, equals and json_schema check text'],
    });
    expect((await grade({ 'src/a.js': '' }, { path: 'src', contains: 'x' })).misses).toEqual([
      '"src" is a directory, not a file',
    ]);
    const workspace = makeWorkspace();
    execFileSync('mkfifo', [path.join(workspace.path, 'pipe')]);
    // A FIFO nobody writes to would block a plain read forever.
    const fifo = await fileEvaluator.evaluate(
      check({ path: 'pipe', contains: 'x' }),
      makeContext({ workspace }),
    );
    expect(fifo.misses).toEqual(['"pipe" is not a regular file']);
  });

  it('does not follow a symbolic link out of the workspace', async () => {
    const outside = makeOutsideFolder();
    writeFileSync(path.join(outside, 'secret.txt'), 'password=hunter2\n');
    const workspace = makeWorkspace({ 'inside.txt': 'fine\n' });
    symlinkSync(path.join(outside, 'secret.txt'), path.join(workspace.path, 'NOTES.md'));
    symlinkSync(outside, path.join(workspace.path, 'docs'));
    symlinkSync('inside.txt', path.join(workspace.path, 'alias.txt'));
    symlinkSync('nowhere.txt', path.join(workspace.path, 'dangling.txt'));
    const context = makeContext({ workspace });
    const leak = await fileEvaluator.evaluate(
      check({ path: 'NOTES.md', contains: 'hunter2' }),
      context,
    );
    expect(leak).toEqual({
      score: 0,
      hits: [],
      misses: [
        `"NOTES.md" leads out of the workspace (a symbolic link to ${path.join(outside, 'secret.txt')}); it is not followed`,
      ],
    });
    expect(
      (await fileEvaluator.evaluate(check({ path: 'docs/secret.txt', exists: true }), context))
        .score,
    ).toBe(0);
    expect(
      (await fileEvaluator.evaluate(check({ path: 'alias.txt', equals: 'fine' }), context)).score,
    ).toBe(1);
    expect(
      (await fileEvaluator.evaluate(check({ path: 'dangling.txt', absent: true }), context)).misses,
    ).toEqual(['"dangling.txt" exists (a symbolic link to nothing), and must be absent']);
  });

  it('is an evaluator error in a case without a workspace', async () => {
    await expect(
      fileEvaluator.evaluate(check({ path: 'NOTES.md', exists: true }), makeContext()),
    ).rejects.toThrow('the `file` grader needs a workspace, and case "case-1" has none');
  });

  it('refuses paths out of the workspace and empty or contradictory checks before the run', () => {
    expect(messagesOf(fileEvaluator.validate?.(check({ path: '../x', exists: true })))).toEqual([
      '"path" "../x" leaves the workspace; give a path inside it',
    ]);
    expect(
      messagesOf(fileEvaluator.validate?.(check({ path: 'a/../../x', exists: true }))),
    ).toEqual(['"path" "a/../../x" leaves the workspace; give a path inside it']);
    expect(
      messagesOf(fileEvaluator.validate?.(check({ path: '/etc/passwd', exists: true }))),
    ).toEqual(['"path" "/etc/passwd" is absolute; give a path relative to the workspace']);
    expect(messagesOf(fileEvaluator.validate?.(check({ path: 'NOTES.md' })))).toEqual([
      'give at least one check of the file: exists, absent, contains, regex, equals, json_schema (e.g. `exists: true`)',
    ]);
    expect(messagesOf(fileEvaluator.validate?.(check({ exists: true })))).toEqual([
      '"path" is missing; give the file to check, relative to the workspace',
    ]);
    expect(
      messagesOf(fileEvaluator.validate?.(check({ path: 'a', absent: true, contains: 'x' }))),
    ).toEqual([
      '"absent: true" cannot be combined with "contains": a file that must be absent has nothing to check',
    ]);
    expect(messagesOf(fileEvaluator.validate?.(check({ path: 'a', exists: false })))).toEqual([
      '"exists: false" is not a check; write `absent: true` for a file that must not exist',
    ]);
    expect(
      messagesOf(
        fileEvaluator.validate?.(
          check({ path: 'a', contains: [], regex: '(', equals: 3, json_schema: 7 }),
        ),
      ),
    ).toEqual([
      '"contains" must be a non-empty string or a non-empty list of them, got []',
      expect.stringMatching(/^"regex" "\(" is not a valid regular expression/),
      '"equals" must be a string (the whole expected content), got 3',
      '"json_schema" must be a JSON Schema mapping or a file path, got 7',
    ]);
    expect(
      messagesOf(fileEvaluator.validate?.(check({ path: 'a', flags: 'm', exists: true }))),
    ).toEqual(['"flags" applies to "regex", which is not given']);
    expect(fileEvaluator.validate?.(check({ path: 'docs/NOTES.md', equals: '' }))).toEqual([]);
  });

  it('suggests the option meant by a misspelt key, for every workspace grader', () => {
    const registry = createEvaluatorRegistry(defaultEvaluators());
    const hints = (config: Record<string, unknown>) =>
      evaluatorKeyIssues(config as EvaluatorConfig, registry).map((issue) => issue.hint);
    expect(hints({ name: 'f', type: 'file', path: 'a', exist: true })).toEqual([
      'did you mean "exists"?',
    ]);
    expect(hints({ name: 'd', type: 'diff', must_changes: ['src/**'] })).toEqual([
      'did you mean "must_change"?',
    ]);
    expect(hints({ name: 'c', type: 'command', command: 'npm test', timeout_second: 5 })).toEqual([
      'did you mean "timeout_seconds"?',
    ]);
  });

  it('reads a file deep in folders the agent created', async () => {
    const workspace = makeWorkspace();
    mkdirSync(path.join(workspace.path, 'a', 'b'), { recursive: true });
    writeFileSync(path.join(workspace.path, 'a', 'b', 'c.txt'), 'deep');
    const result = await fileEvaluator.evaluate(
      check({ path: './a/b/c.txt', equals: 'deep' }),
      makeContext({ workspace }),
    );
    expect(result.score).toBe(1);
  });
});
