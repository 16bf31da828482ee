import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCommand, WORKSPACE_ROOT } from '../support/packed-packages.js';

// `scripts/check-import-cycles.mjs`, which `pnpm run check` runs, on small repositories of its own:
// what a contributor sees when an import turns a folder arrow around.

const SCRIPT = path.join(WORKSPACE_ROOT, 'scripts', 'check-import-cycles.mjs');
let root: string;

/** Writes `files` (paths relative to the repository root) into the temp repository. */
async function writeFiles(files: Record<string, string>): Promise<void> {
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
}

const check = () => runCommand(process.execPath, [SCRIPT, root], { cwd: root });

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'agentv-import-cycles-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('check-import-cycles', () => {
  it('passes folders whose imports all point one way, tests and test-support left out', async () => {
    await writeFiles({
      'packages/core/src/index.ts': "export { run } from './orchestrator/run.js';\n",
      'packages/core/src/errors/issue.ts': 'export interface Issue { message: string }\n',
      'packages/core/src/orchestrator/run.ts':
        "import type { Issue } from '../errors/issue.js';\nexport const run = (issue: Issue) => issue;\n",
      // A test (or its helpers) may reach up: it is not part of the layering.
      'packages/core/src/errors/issue.test.ts': "import { run } from '../orchestrator/run.js';\n",
      'packages/core/src/errors/test-support/make-issue.ts':
        "import { run } from '../../orchestrator/run.js';\n",
    });
    const result = await check();
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('no import cycles between the folders of 1 package');
    expect(result.code).toBe(0);
  });

  it('fails on two folders that import each other, naming the folder chain and each import', async () => {
    await writeFiles({
      'packages/core/src/errors/evaluator-error.ts':
        "import type { EvaluatorResult } from '../evaluators/evaluator.js';\nexport type Members = EvaluatorResult[];\n",
      'packages/core/src/evaluators/evaluator.ts':
        'export interface EvaluatorResult { score: number }\n',
      'packages/core/src/evaluators/grade.ts':
        "import type { Members } from '../errors/evaluator-error.js';\nexport const grade = (members: Members) => members;\n",
    });
    const result = await check();
    expect(result.code).toBe(1);
    // No cycle between files: only the folders go round.
    expect(result.stdout).toContain('no import cycles among 3 files');
    expect(result.stderr).toContain(
      [
        'check-import-cycles: 1 import cycle(s) between the folders of packages/core/src:',
        '  errors -> evaluators -> errors',
        '    errors -> evaluators:',
        '      errors/evaluator-error.ts -> evaluators/evaluator.ts',
        '    evaluators -> errors:',
        '      evaluators/grade.ts -> errors/evaluator-error.ts',
      ].join('\n'),
    );
    expect(result.stderr).toContain('so every arrow points down');
  });

  it('finds a cycle through three folders and through a file directly in src/', async () => {
    await writeFiles({
      'apps/cli/src/main.ts': "import { evalCommand } from './commands/eval.js';\nevalCommand();\n",
      'apps/cli/src/commands/eval.ts':
        "import { repeat } from '../eval/repeat.js';\nexport const evalCommand = () => repeat();\nexport const shared = 1;\n",
      'apps/cli/src/eval/repeat.ts':
        "import { closeChoice } from '../close-choice.js';\nexport const repeat = () => closeChoice();\n",
      'apps/cli/src/close-choice.ts':
        "import { shared } from './commands/eval.js';\nexport const closeChoice = () => shared;\n",
    });
    const result = await check();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('between the folders of apps/cli/src:');
    expect(result.stderr).toContain('  close-choice.ts -> commands -> eval -> close-choice.ts');
    // A file cycle is reported as before, by its files.
    expect(result.stderr).toContain('1 import cycle(s) between files:');
  });
});
