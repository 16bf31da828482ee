import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BIN,
  collectRun,
  createProject,
  ECHO_AGENT,
  ECHO_TARGETS,
  type Project,
  parseJsonl,
  runAgentv,
} from '../support/project.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

const evalFile = (cases: string) => `
execution:
  target: default
evalcases:
${cases}
`;

const echoCase = (id: string, text: string, expected: string) => `
  - id: ${id}
    input_messages:
      - role: user
        content: ${JSON.stringify(text)}
    evaluators:
      - { name: echoed, type: contains, value: ${JSON.stringify(expected)} }
`;

// biome-ignore lint/suspicious/noExplicitAny: tests read result lines of a known shape
async function resultLines(dir: string): Promise<Record<string, any>[]> {
  const resultsDir = path.join(dir, '.agentv', 'results');
  const files = await readdir(resultsDir);
  expect(files).toHaveLength(1);
  expect(files[0]).toMatch(/^eval_.*\.jsonl$/);
  return parseJsonl(await readFile(path.join(resultsDir, files[0]!), 'utf8'));
}

describe('agentv eval', () => {
  it("started in a subfolder, writes its results to the project's .agentv/ and names the eval file as from the top", async () => {
    project = await createProject({
      'agent.mjs': ECHO_AGENT,
      '.agentv/targets.yaml': ECHO_TARGETS,
      'evals/qa.yaml': evalFile(echoCase('hello', 'hello there', 'hello')),
    });
    const inside = await runAgentv(['eval', 'qa.yaml'], path.join(project.dir, 'evals'));
    expect(inside.stderr).toBe('');
    expect(inside.code).toBe(0);
    // No .agentv/ of its own in evals/: it would make evals/ a project of its own.
    expect(await readdir(project.file('evals'))).toEqual(['qa.yaml']);
    const [first] = await resultLines(project.dir);
    expect(first!.eval_file).toBe('evals/qa.yaml');
    // The same case from the top: the two runs compare case by case.
    const top = await runAgentv(['eval', 'evals/qa.yaml', '--out', 'top.jsonl'], project.dir);
    expect(top.code).toBe(0);
    const [second] = parseJsonl(await readFile(project.file('top.jsonl'), 'utf8'));
    expect(second!.eval_file).toBe('evals/qa.yaml');
  });

  it(".env variables reach the agent and code_judge scripts; the shell's own win", async () => {
    project = await createProject({
      '.env': 'AGENTV_E2E_GREETING=from-dotenv\nAGENTV_E2E_SHELL=from-dotenv\n',
      'agent.mjs':
        "process.stdout.write(process.env.AGENTV_E2E_GREETING + ' ' + process.env.AGENTV_E2E_SHELL);",
      'judge.mjs': [
        'const ok = process.env.AGENTV_E2E_GREETING === "from-dotenv";',
        'console.log(JSON.stringify({ score: ok ? 1 : 0, reasoning: String(process.env.AGENTV_E2E_GREETING) }));',
      ].join('\n'),
      '.agentv/targets.yaml':
        'targets:\n  - name: default\n    provider: cli\n    cwd: ..\n    command_template: node agent.mjs\n',
      'evals/env.yaml': evalFile(`
  - id: env
    input_messages: [{ role: user, content: hi }]
    evaluators:
      - { name: greeting, type: contains, value: "from-dotenv from-shell" }
      - { name: judge, type: code_judge, script: [node, ../judge.mjs] }
`),
    });
    const run = await runAgentv(['eval', 'evals/env.yaml'], project.dir, {
      AGENTV_E2E_SHELL: 'from-shell',
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const [line] = await resultLines(project.dir);
    expect(line!.evaluator_results.map((result: { score: number }) => result.score)).toEqual([
      1, 1,
    ]);
  });

  it('runs every case, writes one result line per case and exits 0 when all pass', async () => {
    project = await createProject({
      'agent.mjs': ECHO_AGENT,
      '.agentv/targets.yaml': ECHO_TARGETS,
      'evals/echo.yaml': evalFile(
        echoCase('one', 'hello', 'You said: hello') + echoCase('two', 'bye', 'bye'),
      ),
    });
    const run = await runAgentv(['eval', 'evals/echo.yaml'], project.dir);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('2 cases: 2 passed, 0 failed, 0 errored');
    const lines = await resultLines(project.dir);
    expect(lines.map((line) => line.eval_id).sort()).toEqual(['one', 'two']);
    const one = lines.find((line) => line.eval_id === 'one')!;
    expect(one).toMatchObject({
      dataset: 'echo',
      target: 'default',
      score: 1,
      passed: true,
      candidate_answer: 'You said: hello',
      attempts: 1,
      trace_summary: {
        eventCount: 2,
        toolNames: ['echo'],
        toolCallsByName: { echo: 1 },
        errorCount: 0,
      },
    });
    expect(one).not.toHaveProperty('trace');
    expect(one.evaluator_results[0]).toMatchObject({
      name: 'echoed',
      type: 'contains',
      verdict: 'pass',
    });
  });

  it('exits 1 when a case fails and shows passed and failed cases in the summary', async () => {
    project = await createProject({
      'agent.mjs': ECHO_AGENT,
      '.agentv/targets.yaml': ECHO_TARGETS,
      'evals/echo.yaml': evalFile(echoCase('good', 'hi', 'hi') + echoCase('bad', 'hi', 'goodbye')),
    });
    const run = await runAgentv(['eval', 'evals/echo.yaml'], project.dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('2 cases: 1 passed, 1 failed, 0 errored');
    expect(run.stdout).toMatch(/FAIL\s+bad/);
    const lines = await resultLines(project.dir);
    expect(lines.find((line) => line.eval_id === 'bad')).toMatchObject({ passed: false, score: 0 });
  });

  it('records an agent that exits non-zero as an errored case with its exit code and stderr, and exits 2', async () => {
    project = await createProject({
      'agent.mjs': ECHO_AGENT,
      '.agentv/targets.yaml': ECHO_TARGETS,
      'evals/echo.yaml': evalFile(
        echoCase('fine', 'hi', 'hi') + echoCase('boom', 'please crash', 'x'),
      ),
    });
    const run = await runAgentv(['eval', 'evals/echo.yaml'], project.dir);
    expect(run.code).toBe(2);
    const lines = await resultLines(project.dir);
    expect(lines).toHaveLength(2);
    const boom = lines.find((line) => line.eval_id === 'boom')!;
    expect(boom.passed).toBe(false);
    expect(boom.error).toContain('exited with code 3');
    expect(boom.error).toContain('cannot handle crash requests');
    expect(lines.find((line) => line.eval_id === 'fine')?.passed).toBe(true);
  });

  it('passes a hostile prompt to the agent byte-for-byte', async () => {
    const prompt = `it's "quoted" \`tick\` $(touch pwned) ; rm -rf nothing && echo hi | cat > x\nline two\ttab \\ back ünïcødé 日本語 🚀`;
    project = await createProject({
      'agent.mjs': `
import { writeFileSync } from 'node:fs';
const args = process.argv.slice(2);
writeFileSync(args[args.indexOf('--out') + 1], JSON.stringify({ text: JSON.stringify(args) }));
`,
      '.agentv/targets.yaml': ECHO_TARGETS,
      'evals/hostile.yaml': evalFile(`
  - id: hostile
    input_messages:
      - role: user
        content: ${JSON.stringify(prompt)}
    evaluators:
      - { name: any, type: regex, pattern: "." }
`),
    });
    const run = await runAgentv(['eval', 'evals/hostile.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(0);
    const [line] = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    const argv = JSON.parse(line!.candidate_answer) as string[];
    expect(argv[0]).toBe('--prompt');
    expect(argv[1]).toBe(prompt);
    expect(argv[2]).toBe('--out');
    await expect(readFile(project.file('pwned'))).rejects.toThrow();
    await expect(readFile(project.file('x'))).rejects.toThrow();
  });

  it('filters cases with --eval-id globs and writes to --out', async () => {
    project = await createProject({
      'agent.mjs': ECHO_AGENT,
      '.agentv/targets.yaml': ECHO_TARGETS,
      'evals/echo.yaml': evalFile(
        echoCase('refund-1', 'a', 'a') +
          echoCase('refund-2', 'b', 'b') +
          echoCase('status-1', 'c', 'c'),
      ),
    });
    const run = await runAgentv(
      ['eval', 'evals', '--eval-id', 'refund-*', '--eval-id', 'status-1', '--out', 'r/out.jsonl'],
      project.dir,
    );
    expect(run.code).toBe(0);
    const lines = parseJsonl(await readFile(project.file('r/out.jsonl'), 'utf8'));
    expect(lines.map((line) => line.eval_id).sort()).toEqual(['refund-1', 'refund-2', 'status-1']);
    const none = await runAgentv(['eval', 'evals', '--eval-id', 'nothing-*'], project.dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no case id matches --eval-id nothing-*');
  });

  it('answers every case with the mock provider on --dry-run, with no targets file', async () => {
    project = await createProject({
      'evals/echo.yaml': evalFile(echoCase('a', 'hello', 'mock response')),
    });
    const run = await runAgentv(
      ['eval', 'evals/echo.yaml', '--dry-run', '--out', 'o.jsonl'],
      project.dir,
    );
    expect(run.stderr).toBe('');
    // Said first: the scores below are not the agent's.
    expect(run.stdout).toMatch(
      /^dry run: every target is replaced by a mock with a fixed reply; no agent or judge is called, so the scores check the eval file, not the agent\n/,
    );
    const [line] = parseJsonl(await readFile(project.file('o.jsonl'), 'utf8'));
    expect(line).toMatchObject({
      eval_id: 'a',
      candidate_answer: 'This is a mock response.',
      passed: true,
    });
    expect(run.code).toBe(0);
  });

  it('finishes the run and writes every result when stdout is closed early (agentv eval | head)', async () => {
    const cases = Array.from({ length: 20 }, (_, index) =>
      echoCase(`c${index}`, `p${index}`, `p${index}`),
    ).join('');
    project = await createProject({
      'agent.mjs': ECHO_AGENT,
      '.agentv/targets.yaml': ECHO_TARGETS,
      'evals/echo.yaml': evalFile(cases),
    });
    const child = spawn(
      process.execPath,
      [BIN, 'eval', 'evals/echo.yaml', '--out', 'out.jsonl', '--workers', '1'],
      {
        cwd: project.dir,
        env: { ...process.env, CI: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    // Like `head -1`: read the first line, then close the pipe.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(stderr).not.toContain('EPIPE');
    expect(code).toBe(0);
    expect(parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'))).toHaveLength(20);
  });

  it('runs cases on the --workers pool', async () => {
    const cases = Array.from({ length: 6 }, (_, index) =>
      echoCase(`c${index}`, `p${index}`, `p${index}`),
    ).join('');
    project = await createProject({
      // Each call records its start and end so the test can count overlapping calls. A call
      // ends only once 3 calls have started (or after 20 s), so that the pool's 3 calls overlap
      // however slowly the machine starts them; with fewer at a time the peak stays below 3.
      'agent.mjs': `
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
const args = process.argv.slice(2);
appendFileSync('log.txt', 'start\\n');
const starts = () => readFileSync('log.txt', 'utf8').split('start').length - 1;
const deadline = Date.now() + 20_000;
while (starts() < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
await new Promise((resolve) => setTimeout(resolve, 100));
appendFileSync('log.txt', 'end\\n');
writeFileSync(args[args.indexOf('--out') + 1], args[args.indexOf('--prompt') + 1]);
`,
      '.agentv/targets.yaml': ECHO_TARGETS,
      'evals/echo.yaml': evalFile(cases),
    });
    const run = await runAgentv(['eval', 'evals/echo.yaml', '--workers', '3'], project.dir);
    expect(run.code).toBe(0);
    const log = (await readFile(project.file('log.txt'), 'utf8')).trim().split('\n');
    let active = 0;
    let peak = 0;
    for (const entry of log) {
      active += entry === 'start' ? 1 : -1;
      peak = Math.max(peak, active);
    }
    expect(log).toHaveLength(12);
    expect(peak).toBe(3);
  });

  it('loads the yaml package only for a file the fast parser does not read whole', async () => {
    // A module hook that reports the `yaml` package when node resolves it: its own files, or
    // the chunk of the CLI's bundle holding it (the bundler heads each module with its path).
    const resolveHook = `import { readFileSync } from 'node:fs';
const yaml = /node_modules\\/yaml\\//;
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  const url = result.url;
  if (yaml.test(url) || (url.includes('/bundle/') && yaml.test(readFileSync(new URL(url), 'utf8')))) {
    process.stderr.write('YAML ' + url + ' ');
  }
  return result;
}`;
    project = await createProject({
      // The CLI's bundle is CommonJS, which node's module hooks do not see on Node 20: a
      // wrapper of Module.prototype.load reports the chunks it requires.
      'hook.mjs': `import Module, { register } from 'node:module';
import { readFileSync } from 'node:fs';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(resolveHook)}));
const yaml = /node_modules\\/yaml\\//;
const load = Module.prototype.load;
Module.prototype.load = function (filename) {
  if (yaml.test(filename) || (filename.includes('/bundle/') && yaml.test(readFileSync(filename, 'utf8')))) {
    process.stderr.write('YAML ' + filename + ' ');
  }
  return load.call(this, filename);
};
`,
      'agent.mjs': ECHO_AGENT,
      '.agentv/targets.yaml': ECHO_TARGETS,
      'evals/plain.yaml': evalFile(echoCase('plain', 'hello', 'hello')),
      // An anchor: the fast parser leaves the file to the `yaml` package.
      'evals/anchored.yaml': evalFile(`
  - id: anchored
    input_messages: &hello [{ role: user, content: hello }]
    evaluators: [{ name: echoed, type: contains, value: hello }]
`),
    });
    const run = (file: string) =>
      collectRun(
        spawn(process.execPath, ['--import', project!.file('hook.mjs'), BIN, 'eval', file], {
          cwd: project!.dir,
          env: { ...process.env, NO_COLOR: '1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      );
    const anchored = await run('evals/anchored.yaml');
    expect(anchored.code).toBe(0);
    expect(anchored.stderr).toContain('YAML ');
    const plain = await run('evals/plain.yaml');
    expect(plain.code).toBe(0);
    expect(plain.stderr).toBe('');
  });
});
