import { describe, expect, it } from 'vitest';
import type { FileChange, FileChanges } from '../workspace/file-changes.js';
import { diffEvaluator } from './diff.js';
import { makeConfig, makeContext } from './test-support/make-context.js';
import { makeWorkspace } from './test-support/make-workspace.js';

const messagesOf = (issues: { message: string }[] | undefined) =>
  issues?.map((issue) => issue.message);

function changed(...files: FileChange[]): FileChanges {
  return {
    files,
    insertions: files.reduce((sum, file) => sum + file.insertions, 0),
    deletions: files.reduce((sum, file) => sum + file.deletions, 0),
    diff: '',
  };
}

const modified = (path: string, insertions = 1, deletions = 1): FileChange => ({
  path,
  status: 'modified',
  insertions,
  deletions,
});

function grade(changes: FileChanges, options: Record<string, unknown>) {
  return diffEvaluator.evaluate(
    makeConfig('diff', options),
    makeContext({ workspace: makeWorkspace({}, changes) }),
  );
}

const fix = changed(
  modified('src/sum.js', 2, 1),
  { path: 'NOTES.md', status: 'added', insertions: 3, deletions: 0 },
  { path: 'assets/logo.png', status: 'modified', binary: true, insertions: 0, deletions: 0 },
);

describe('diff grader', () => {
  it('passes when every must_change glob matched a change and nothing forbidden changed', async () => {
    const result = await grade(fix, {
      must_change: ['src/**', 'NOTES.md'],
      must_not_change: ['test/**', 'package.json'],
      max_lines: 10,
    });
    expect(result).toEqual({
      score: 1,
      hits: [
        'changed as required ("src/**"): src/sum.js (modified)',
        'changed as required ("NOTES.md"): NOTES.md (added)',
        'nothing matching "test/**" changed',
        'nothing matching "package.json" changed',
        '6 lines changed (+5 -1; 1 binary file not counted), within max_lines 10',
      ],
      misses: [],
    });
  });

  it('names the paths of each miss', async () => {
    const result = await grade(
      changed(modified('test/sum.test.js', 40, 2), {
        ...modified('src/old.js', 0, 12),
        status: 'deleted',
      }),
      { must_change: 'src/sum.js', must_not_change: ['test/'], max_lines: 20 },
    );
    expect(result).toEqual({
      score: 0,
      hits: [],
      misses: [
        'nothing matching "src/sum.js" changed; changed: test/sum.test.js (modified), src/old.js (deleted)',
        'changed but must not ("test/"): test/sum.test.js (modified)',
        '54 lines changed (+40 -14), more than max_lines 20',
      ],
    });
  });

  it('matches globs by segment: * stays in a folder, ** crosses them, ./ is dropped', async () => {
    const changes = changed(modified('src/deep/a.ts'), modified('README.md'));
    expect((await grade(changes, { must_change: ['src/*.ts'] })).score).toBe(0);
    expect((await grade(changes, { must_change: ['src/**/*.ts'] })).score).toBe(1);
    expect((await grade(changes, { must_change: ['./README.md'] })).score).toBe(1);
    expect((await grade(changes, { must_not_change: ['*.md'] })).misses).toEqual([
      'changed but must not ("*.md"): README.md (modified)',
    ]);
  });

  it('says when nothing changed at all, and lists at most 10 paths', async () => {
    expect((await grade(changed(), { must_change: ['**'] })).misses).toEqual([
      'nothing matching "**" changed (nothing changed at all)',
    ]);
    const many = changed(...Array.from({ length: 13 }, (_, index) => modified(`gen/${index}.js`)));
    expect((await grade(many, { must_not_change: ['gen/'] })).misses).toEqual([
      `changed but must not ("gen/"): ${Array.from({ length: 10 }, (_, index) => `gen/${index}.js (modified)`).join(', ')} and 3 more`,
    ]);
  });

  it('is an evaluator error in a case without a workspace', async () => {
    await expect(
      diffEvaluator.evaluate(makeConfig('diff', { max_lines: 5 }), makeContext()),
    ).rejects.toThrow('the `diff` grader needs a workspace, and case "case-1" has none');
  });

  it('reports empty and malformed checks before the run', () => {
    expect(messagesOf(diffEvaluator.validate?.(makeConfig('diff')))).toEqual([
      'give at least one check: must_change, must_not_change, max_lines (e.g. `must_change: [src/**]`)',
    ]);
    expect(
      messagesOf(
        diffEvaluator.validate?.(
          makeConfig('diff', {
            must_change: [],
            must_not_change: ['/etc/**', '..\\x', '../up'],
            max_lines: 2.5,
          }),
        ),
      ),
    ).toEqual([
      '"must_change" must be a glob or a non-empty list of globs such as [src/**, package.json], got []',
      '"must_not_change" glob "/etc/**" is absolute; changed paths are relative to the workspace (write `src/**`)',
      '"must_not_change" glob "..\\\\x" uses `\\`; changed paths use `/` (write `src/app.ts`)',
      '"must_not_change" glob "../up" leaves the workspace; changed paths are inside it',
      '"max_lines" must be a whole number of lines >= 0, got 2.5',
    ]);
    expect(diffEvaluator.validate?.(makeConfig('diff', { max_lines: 0 }))).toEqual([]);
  });
});
