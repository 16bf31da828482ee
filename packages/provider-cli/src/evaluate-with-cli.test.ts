import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createProviderRegistry, evaluate, loadEvalFile } from '@agentv/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliProviderFactory } from './cli-provider.js';

// The library API of @agentv/core with the real cli provider: evaluate() runs
// real agent processes, from an eval file path and from parsed cases.

const AGENT = `
import { appendFileSync } from 'node:fs';
const prompt = process.argv[2];
appendFileSync(new URL('./calls.log', import.meta.url), process.argv[3] + '\\n');
process.stdout.write(prompt.includes('capital') ? 'Paris, of course.' : 'No idea.');
`;

const EVAL_FILE = `evalcases:
  - id: capital
    input_messages: [{ role: user, content: "What is the capital of France?" }]
    evaluators: [{ name: paris, type: contains, value: Paris }]
  - id: weather
    input_messages: [{ role: user, content: "Will it rain tomorrow?" }]
    evaluators: [{ name: paris, type: contains, value: Paris }]
`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agentv-evaluate-cli-'));
  await mkdir(path.join(dir, '.agentv'));
  await mkdir(path.join(dir, 'evals'));
  await writeFile(path.join(dir, 'agent.mjs'), AGENT);
  await writeFile(path.join(dir, 'evals', 'geo.yaml'), EVAL_FILE);
  await writeFile(
    path.join(dir, '.agentv', 'targets.yaml'),
    `targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node agent.mjs {PROMPT} default
`,
  );
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const providers = createProviderRegistry([cliProviderFactory]);

async function calls(): Promise<string[]> {
  const text = await readFile(path.join(dir, 'calls.log'), 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '');
}

describe('evaluate() with the cli provider', () => {
  it('runs an eval file by path through a real agent process', async () => {
    const finished: string[] = [];
    const outcome = await evaluate({
      evalFiles: ['evals/geo.yaml'],
      providers,
      cwd: dir,
      onResult: (result) => {
        finished.push(`${result.evalId}:${result.passed}`);
      },
    });
    expect(finished.sort()).toEqual(['capital:true', 'weather:false']);
    expect(outcome.results.find((result) => result.evalId === 'capital')?.candidateAnswer).toBe(
      'Paris, of course.',
    );
    expect(outcome.summary).toMatchObject({ total: 2, passed: 1, failed: 1, passRate: 0.5 });
    expect(await calls()).toEqual(['default', 'default']);
  });

  it('runs parsed cases against two targets given in code', async () => {
    const loaded = await loadEvalFile(path.join(dir, 'evals', 'geo.yaml'), { cwd: dir });
    const outcome = await evaluate({
      cases: loaded.value!.cases,
      providers,
      cwd: dir,
      targetDefinitions: [
        { name: 'one', provider: 'cli', cwd: dir, commandTemplate: 'node agent.mjs {PROMPT} one' },
        { name: 'two', provider: 'cli', cwd: dir, command_template: 'node agent.mjs {PROMPT} two' },
      ],
      targets: ['one', 'two'],
    });
    expect(outcome.results.map((result) => `${result.target}/${result.evalId}`).sort()).toEqual([
      'one/capital',
      'one/weather',
      'two/capital',
      'two/weather',
    ]);
    expect((await calls()).sort()).toEqual(['one', 'one', 'two', 'two']);
    expect(
      Object.fromEntries(outcome.summary.targets.map((target) => [target.target, target.passed])),
    ).toEqual({ one: 1, two: 1 });
  });

  it('runs eval files against targets given in code, not the targets file beside them', async () => {
    const outcome = await evaluate({
      evalFiles: ['evals/geo.yaml'],
      providers,
      cwd: dir,
      targetDefinitions: [
        {
          name: 'default',
          provider: 'cli',
          cwd: '..',
          command_template: 'node agent.mjs {PROMPT} code',
        },
      ],
    });
    expect(outcome.summary).toMatchObject({ total: 2, passed: 1 });
    // The targets file's `default` would have logged "default".
    expect(await calls()).toEqual(['code', 'code']);
  });

  it("retries a failing agent maxRetries times, over the target's own max_retries", async () => {
    const outcome = await evaluate({
      evalFiles: ['evals/geo.yaml'],
      providers,
      cwd: dir,
      target: 'failing',
      maxRetries: 1,
      targetDefinitions: [
        {
          name: 'failing',
          provider: 'cli',
          cwd: '..',
          max_retries: 0,
          command_template: 'node agent.mjs {PROMPT} failing && exit 1',
        },
      ],
    });
    expect(outcome.results.map((result) => [result.evalId, result.attempts])).toEqual(
      expect.arrayContaining([
        ['capital', 2],
        ['weather', 2],
      ]),
    );
    expect(outcome.summary.errored).toBe(2);
    expect(await calls()).toEqual(['failing', 'failing', 'failing', 'failing']);
  });

  it('reports a bad target definition as a located issue before starting any process', async () => {
    const loaded = await loadEvalFile(path.join(dir, 'evals', 'geo.yaml'), { cwd: dir });
    const error = await evaluate({
      cases: loaded.value!.cases,
      providers,
      cwd: dir,
      targetDefinitions: [{ name: 'default', provider: 'cli', cwd: dir }],
    }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'invalid-input' });
    expect(String((error as Error).message)).toContain('command_template');
    expect(await calls()).toEqual([]);
  });
});
