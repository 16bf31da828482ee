import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { shellWord } from '@agentv/core/provider-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, parseJsonl, runAgentv } from '../support/project.js';
import { runInTerminal } from '../support/run-in-terminal.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** An empty folder that is not inside any repository or project. */
async function emptyDir(): Promise<string> {
  dir = await mkdtemp(path.join(tmpdir(), 'agentv-init-e2e-'));
  return dir;
}

const STARTER_FILES = [
  '.agentv/targets.yaml',
  '.agentv/config.yaml',
  '.agentv/.gitignore',
  'agents/example-agent.mjs',
  'evals/example.yaml',
];

describe('agentv init', () => {
  it('sets up a project that passes agentv validate and runs offline with agentv eval', async () => {
    const root = await emptyDir();
    const init = await runAgentv(['init'], root);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    expect(init.stdout.split('\n').slice(0, STARTER_FILES.length)).toEqual(
      STARTER_FILES.map((file) => `created     ${file}`),
    );
    // AgentV is not installed in the project: `npx agentv` would fetch upstream AgentV 4.x.
    const agentv = `node ${shellWord(await realpath(BIN))}`;
    expect(init.stdout).toContain(`Next: ${agentv} validate && ${agentv} eval\n`);

    const validate = await runAgentv(['validate'], root);
    expect(validate.stdout).toBe('3 files checked: no errors\n');
    expect(validate.code).toBe(0);

    // As init suggests: no paths means the eval files under evals/.
    const run = await runAgentv(['eval', '--out', 'results.jsonl'], root);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('2 cases: 2 passed, 0 failed, 0 errored');
    const results = parseJsonl(await readFile(path.join(root, 'results.jsonl'), 'utf8'));
    expect(results.map((result) => [result.eval_id, result.passed]).sort()).toEqual([
      ['opening-hours', true],
      ['order-status', true],
    ]);
  });

  it('agentv eval without paths runs every eval file under evals/, and says what to do without one', async () => {
    const root = await emptyDir();
    const none = await runAgentv(['eval'], root);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe(
      `agentv: no eval files given, and ${root} has no evals/ folder\n` +
        '  hint: pass eval files, directories or globs, e.g. agentv eval evals/*.yaml; agentv init writes an example\n',
    );
    expect(none.code).toBe(2);

    await runAgentv(['init'], root);
    await writeFile(
      path.join(root, 'evals', 'extra.yaml'),
      [
        '$schema: agentv-eval-v2',
        'evalcases:',
        '  - id: extra',
        '    input_messages: [{ role: user, content: When are you open? }]',
        '    evaluators: [{ name: hours, type: contains, value: 9am }]',
        '',
      ].join('\n'),
    );
    const run = await runAgentv(['eval', '--out', 'results.jsonl'], root);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('3 cases: 3 passed, 0 failed, 0 errored');
    const results = parseJsonl(await readFile(path.join(root, 'results.jsonl'), 'utf8'));
    expect(results.map((result) => `${result.eval_file}#${result.eval_id}`).sort()).toEqual([
      'evals/example.yaml#opening-hours',
      'evals/example.yaml#order-status',
      'evals/extra.yaml#extra',
    ]);
  });

  it('points editors at the shipped JSON Schemas and keeps the LLM target commented out', async () => {
    const root = await emptyDir();
    await runAgentv(['init'], root);
    const targets = await readFile(path.join(root, '.agentv/targets.yaml'), 'utf8');
    expect(targets.split('\n')[0]).toMatch(
      /^# yaml-language-server: \$schema=\S+\/schemas\/targets\.schema\.json$/,
    );
    expect(targets).toContain('$schema: agentv-targets-v2.2');
    expect(targets).toContain('  - name: default\n    provider: cli\n');
    expect(targets).toMatch(/^ {2}# - name: llm\n {2}# {3}provider: openai-compatible$/m);
    const evalFile = await readFile(path.join(root, 'evals/example.yaml'), 'utf8');
    expect(evalFile.split('\n')[0]).toMatch(/\$schema=\S+\/schemas\/eval\.schema\.json$/);
    const config = await readFile(path.join(root, '.agentv/config.yaml'), 'utf8');
    expect(config.split('\n')[0]).toMatch(/\$schema=\S+\/schemas\/config\.schema\.json$/);
  });

  it('writes an LLM target that validates once uncommented and given a .env', async () => {
    const root = await emptyDir();
    await runAgentv(['init'], root);
    const targetsPath = path.join(root, '.agentv/targets.yaml');
    const targets = await readFile(targetsPath, 'utf8');
    const start = targets.indexOf('  # - name: llm');
    expect(start).toBeGreaterThan(0);
    const uncommented = targets.slice(start).replace(/^ {2}# /gm, '  ');
    await writeFile(targetsPath, targets.slice(0, start) + uncommented);

    const unset = await runAgentv(['validate'], root, {
      OPENAI_BASE_URL: undefined,
      OPENAI_API_KEY: undefined,
      OPENAI_MODEL: undefined,
    });
    expect(unset.stdout).toContain('3 files checked: no errors');

    await writeFile(
      path.join(root, '.env'),
      'OPENAI_BASE_URL=http://127.0.0.1:11434/v1\nOPENAI_API_KEY=local\nOPENAI_MODEL=llama3.1\n',
    );
    const validate = await runAgentv(['validate'], root);
    expect(validate.stderr).toBe('');
    expect(validate.stdout).toBe('3 files checked: no errors\n');
    expect(validate.code).toBe(0);
  });

  it('keeps files that exist when not at a terminal, says so and exits 1; --force overwrites', async () => {
    const root = await emptyDir();
    await runAgentv(['init'], root);
    const evalPath = path.join(root, 'evals/example.yaml');
    await writeFile(evalPath, 'evalcases: mine\n');

    const again = await runAgentv(['init'], root);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain('unchanged   .agentv/targets.yaml\n');
    expect(again.stdout).toContain(
      'kept        evals/example.yaml (it already exists; run with --force to overwrite it)\n',
    );
    expect(await readFile(evalPath, 'utf8')).toBe('evalcases: mine\n');

    const forced = await runAgentv(['init', '--force'], root);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('overwritten evals/example.yaml\n');
    expect(await readFile(evalPath, 'utf8')).toContain('id: order-status');
  });

  it('asks before overwriting each file that differs when run at a terminal', async () => {
    const root = await emptyDir();
    await runAgentv(['init'], root);
    await writeFile(path.join(root, '.agentv/targets.yaml'), 'targets: mine\n');
    await writeFile(path.join(root, 'evals/example.yaml'), 'evalcases: mine\n');

    // No to the targets file, yes to the eval file.
    const run = await runInTerminal(['init'], root, { input: 'n\ny\n' });
    const screen = run.stdout.replace(/\r/g, '');
    expect(run.code).toBe(0);
    expect(screen).toContain('.agentv/targets.yaml exists and differs. Overwrite? [y/N] ');
    expect(screen).toContain('evals/example.yaml exists and differs. Overwrite? [y/N] ');
    expect(screen).toContain('kept        .agentv/targets.yaml (it already exists)\n');
    expect(screen).toContain('overwritten evals/example.yaml\n');
    expect(await readFile(path.join(root, '.agentv/targets.yaml'), 'utf8')).toBe('targets: mine\n');
    expect(await readFile(path.join(root, 'evals/example.yaml'), 'utf8')).toContain('order-status');
  });

  it('creates the folder it is given', async () => {
    const root = await emptyDir();
    const run = await runAgentv(['init', 'my-evals'], root);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('created     my-evals/.agentv/targets.yaml\n');
    const agentv = `node ${shellWord(await realpath(BIN))}`;
    expect(run.stdout).toContain(`Next: cd my-evals && ${agentv} validate && ${agentv} eval\n`);
    expect((await readdir(path.join(root, 'my-evals'))).sort()).toEqual([
      '.agentv',
      'agents',
      'evals',
    ]);
  });
});
