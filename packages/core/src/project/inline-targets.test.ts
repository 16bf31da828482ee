// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} are placeholders of targets, not JS templates
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEvaluatorRegistry, defaultEvaluators } from '../evaluators/evaluator-registry.js';
import { planRun } from '../orchestrator/plan-run.js';
import { mockProviderFactory } from '../provider/mock-provider.js';
import { createProviderRegistry } from '../provider/provider-registry.js';
import { loadProject } from './load-project.js';

const registry = createProviderRegistry([mockProviderFactory]);
const evaluators = createEvaluatorRegistry(defaultEvaluators());

function evalFile(target: string, inline: string[]): string {
  return [
    ...inline,
    'evalcases:',
    '  - id: one',
    `    execution: { target: ${target} }`,
    '    input_messages: [{ role: user, content: hi }]',
    '    evaluators: [{ type: contains, value: hi }]',
  ].join('\n');
}

describe('inline targets', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-inline-'));
    await mkdir(path.join(dir, '.git'));
    await mkdir(path.join(dir, 'evals'));
    await writeFile(path.join(dir, '.env'), 'AGENTV_TEST_INLINE=from-dotenv\n');
    await writeFile(
      path.join(dir, 'targets.yaml'),
      'targets:\n  - name: shared\n    provider: mock\n',
    );
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('belong to their eval file only: camelCase keys, placeholders, paths relative to the eval file', async () => {
    const a = path.join(dir, 'evals', 'a.yaml');
    const b = path.join(dir, 'evals', 'b.yaml');
    await writeFile(
      a,
      evalFile('mine', [
        'targets:',
        '  - name: mine',
        '    provider: mock',
        '    response: "${{ AGENTV_TEST_INLINE }}"',
        '    timeoutSeconds: 5',
      ]),
    );
    await writeFile(b, evalFile('mine', []));
    const project = await loadProject({
      cwd: dir,
      providerRegistry: registry,
      evalFiles: [a, b],
      mode: 'run',
    });
    expect(project.issues).toEqual([]);
    const [mine] = project.inlineTargets.get(a) ?? [];
    expect(mine).toMatchObject({
      name: 'mine',
      settings: { response: 'from-dotenv' },
      timeoutSeconds: 5,
      filePath: a,
      baseDir: path.join(dir, 'evals'),
      line: 2,
    });
    expect(project.inlineTargets.has(b)).toBe(false);

    const { plan, issues } = planRun({
      cases: project.cases,
      targets: project.targets.get(path.join(dir, 'targets.yaml')) ?? [],
      targetsFile: 'targets.yaml',
      providerRegistry: registry,
      evaluatorRegistry: evaluators,
      inlineTargets: project.inlineTargets,
    });
    expect(plan.cases.map((c) => c.target.filePath)).toEqual([a]);
    expect(issues).toEqual([
      expect.objectContaining({
        file: b,
        caseId: 'one',
        message: 'unknown target "mine"',
        hint: 'targets in targets.yaml: shared',
      }),
    ]);
  });

  it('a name also in the targets file is an error naming both places', async () => {
    const a = path.join(dir, 'evals', 'a.yaml');
    await writeFile(a, evalFile('shared', ['targets:', '  - name: shared', '    provider: mock']));
    const project = await loadProject({
      cwd: dir,
      providerRegistry: registry,
      evalFiles: [a],
      mode: 'run',
    });
    expect(project.issues).toEqual([
      {
        severity: 'error',
        file: a,
        line: 2,
        column: 5,
        target: 'shared',
        message: `defined twice: inline in ${path.join('evals', 'a.yaml')}:2:5 and in targets.yaml:2:5`,
        hint: "rename one of them (inline targets are seen only by the cases of their own eval file), or delete the inline one to use targets.yaml's",
      },
    ]);
    expect(project.inlineTargets.get(a)).toBeUndefined();
  });
});
