import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { processAlive } from '../support/processes.js';
import { BIN, createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

const EXAMPLES = new URL('../../../../examples/persistent/', import.meta.url);
const README = new URL('../../../../README.md', import.meta.url);

/** A persistent test agent: `crash` exits on its first attempt (attempts count from 1), `hang` starts a child and never answers. */
const TEST_AGENT = `
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
for await (const line of createInterface({ input: process.stdin })) {
  const { id, question, attempt } = JSON.parse(line);
  process.stderr.write('thinking about ' + id + '\\n');
  if (question === 'crash' && attempt === 1) process.exit(3);
  if (question === 'hang') {
    appendFileSync('starts.log', 'child ' + spawn('sleep', ['60'], { stdio: 'ignore' }).pid + '\\n');
    continue;
  }
  if (question === 'bad-json') { console.log('{"id": "' + id + '", "text": oops'); continue; }
  console.log(JSON.stringify({ id, text: 'You asked: ' + question }));
}
`;

/** A target whose command logs `start <pid>` to starts.log and then becomes the agent. */
function targets(agent: string, extra = ''): string {
  return `targets:
  - name: default
    provider: cli
    mode: persistent
    cwd: ..
    command_template: echo "start $$" >> starts.log; exec ${agent}
${extra}`;
}

/** Cases c0..c<count-1> asking q<n>, then cases asking what their id says, then d0..d<after-1> asking r<n>. */
function evalFile(count: number, special: string[] = [], after = 0): string {
  const asks = (id: string, question: string) =>
    `  - id: ${id}\n    input_messages: [{ role: user, content: "${question}" }]\n` +
    `    evaluators: [{ type: equals, value: "You asked: ${question}" }]\n`;
  const numbered = (prefix: string, ask: string, length: number) =>
    Array.from({ length }, (_, index) => asks(`${prefix}${index}`, `${ask}${index}`));
  return `evalcases:\n${[...numbered('c', 'q', count), ...special.map((name) => asks(name, name)), ...numbered('d', 'r', after)].join('')}`;
}

async function logged(dir: Project, kind: string): Promise<number[]> {
  return (await readFile(dir.file('starts.log'), 'utf8'))
    .split('\n')
    .filter((line) => line.startsWith(`${kind} `))
    .map((line) => Number(line.slice(kind.length + 1)));
}

describe('agentv eval with mode: persistent', () => {
  it.each([
    ['Node', 'agent.mjs', 'node agent.mjs'],
    ['Python', 'agent.py', 'python3 agent.py'],
  ])(
    'runs 200 cases on the README %s client with 4 workers and 4 process starts',
    async (_, file, command) => {
      const source = await readFile(new URL(file, EXAMPLES), 'utf8');
      // The README shows this very file.
      expect(await readFile(README, 'utf8')).toContain(source);
      project = await createProject({
        [file]: source,
        '.agentv/targets.yaml': targets(command),
        'evals/many.yaml': evalFile(200),
      });
      const run = await runAgentv(
        ['eval', 'evals/many.yaml', '--out', 'out.jsonl', '--workers', '4'],
        project.dir,
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('200 cases: 200 passed, 0 failed, 0 errored');
      const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
      expect(lines).toHaveLength(200);
      const starts = await logged(project, 'start');
      expect(starts).toHaveLength(4);
      expect(starts.filter(processAlive)).toEqual([]);
    },
    120_000,
  );

  it('keeps its processes across --repeat: a worker starts once, not once per repeat', async () => {
    project = await createProject({
      'agent.mjs': TEST_AGENT,
      '.agentv/targets.yaml': targets('node agent.mjs'),
      'evals/e.yaml': evalFile(3),
    });
    const run = await runAgentv(
      ['eval', 'evals/e.yaml', '--out', 'out.jsonl', '--workers', '1', '--repeat', '3'],
      project.dir,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('3 cases: 3 passed, 0 failed, 0 errored');
    const starts = await logged(project, 'start');
    expect(starts).toHaveLength(1);
    expect(starts.filter(processAlive)).toEqual([]);
  }, 60_000);

  it('keeps a persistent judge across --repeat too: it starts once and gets EOF once', async () => {
    // The judge answers every grading request with a passing verdict, and notes when its stdin ends.
    const judge = `
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
const verdict = JSON.stringify({ score: 1, hits: ['answered'], misses: [], reasoning: 'fine' });
for await (const line of createInterface({ input: process.stdin })) {
  console.log(JSON.stringify({ id: JSON.parse(line).id, text: verdict }));
}
appendFileSync('starts.log', 'eof ' + process.pid + '\\n');
`;
    project = await createProject({
      'agent.mjs': TEST_AGENT,
      'judge.mjs': judge,
      '.agentv/targets.yaml': `${targets('node agent.mjs', '    judge_target: judge\n')}  - name: judge
    provider: cli
    mode: persistent
    cwd: ..
    command_template: echo "judge $$" >> starts.log; exec node judge.mjs
`,
      'evals/e.yaml': `evalcases:\n${['a', 'b', 'c']
        .map(
          (id) =>
            `  - id: ${id}\n    input_messages: [{ role: user, content: "${id}?" }]\n    evaluators: [{ name: quality, type: llm_judge }]\n`,
        )
        .join('')}`,
    });
    const run = await runAgentv(
      ['eval', 'evals/e.yaml', '--out', 'out.jsonl', '--workers', '1', '--repeat', '3'],
      project.dir,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('3 cases: 3 passed, 0 failed, 0 errored');
    const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(lines.map((line) => line.repeats.runs.length)).toEqual([3, 3, 3]);
    const judges = await logged(project, 'judge');
    expect(judges).toHaveLength(1);
    expect(await logged(project, 'start')).toHaveLength(1);
    expect(await logged(project, 'eof')).toEqual(judges);
    expect(judges.filter(processAlive)).toEqual([]);
  }, 60_000);

  it('restarts a worker that crashed on one case; the retry and the other cases pass', async () => {
    project = await createProject({
      'agent.mjs': TEST_AGENT,
      '.agentv/targets.yaml': targets('node agent.mjs', '    max_retries: 1\n'),
      'evals/e.yaml': evalFile(3, ['crash'], 3),
    });
    // One worker: the retry and every case after it need the new process.
    const run = await runAgentv(
      ['eval', 'evals/e.yaml', '--out', 'out.jsonl', '--workers', '1'],
      project.dir,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('7 cases: 7 passed, 0 failed, 0 errored');
    const crash = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8')).find(
      (line) => line.eval_id === 'crash',
    );
    expect(crash?.attempts).toBe(2);
    const starts = await logged(project, 'start');
    expect(starts).toHaveLength(2);
    expect(starts.filter(processAlive)).toEqual([]);
    const order = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8')).map(
      (line) => line.eval_id,
    );
    expect(order.indexOf('crash')).toBeLessThan(order.indexOf('d2'));
  }, 60_000);

  it('a worker that exits after each answer fails no run: a case sent to it as it exits is retried on a new one', async () => {
    // A long answer keeps the exit close behind it: the next case is sent as the worker exits.
    const agent = `
import { createInterface } from 'node:readline';
createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, question } = JSON.parse(line);
  const text = 'You asked: ' + question + ' '.repeat(2 ** 20);
  process.stdout.write(JSON.stringify({ id, text }) + '\\n', () => process.exit(0));
});
`;
    project = await createProject({
      'agent.mjs': agent,
      '.agentv/targets.yaml': targets('node agent.mjs', '    max_retries: 1\n'),
      'evals/e.yaml': evalFile(8).replaceAll('type: equals', 'type: contains'),
    });
    const run = await runAgentv(
      ['eval', 'evals/e.yaml', '--out', 'out.jsonl', '--workers', '1'],
      project.dir,
    );
    expect(run.stderr).not.toContain('EPIPE');
    expect(run.stdout).toContain('8 cases: 8 passed, 0 failed, 0 errored');
    expect(run.code).toBe(0);
    const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(lines.map((line) => line.eval_id).sort()).toEqual(
      Array.from({ length: 8 }, (_, index) => `c${index}`),
    );
    expect((await logged(project, 'start')).filter(processAlive)).toEqual([]);
  }, 60_000);

  it('kills a worker that hangs at the timeout and leaves no process behind', async () => {
    project = await createProject({
      'agent.mjs': TEST_AGENT,
      '.agentv/targets.yaml': targets(
        'node agent.mjs',
        '    max_retries: 0\n    timeout_seconds: 5\n',
      ),
      'evals/e.yaml': evalFile(4, ['hang']),
    });
    const run = await runAgentv(
      ['eval', 'evals/e.yaml', '--out', 'out.jsonl', '--workers', '2', '--verbose'],
      project.dir,
    );
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('5 cases: 4 passed, 0 failed, 1 errored');
    const hang = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8')).find(
      (line) => line.eval_id === 'hang',
    );
    expect(hang?.error).toMatch(
      /^timed out after 5s: \[cli:default#\d\] \(pid \d+\) gave no response line for case "hang" and was killed; stderr: .*thinking about hang/s,
    );
    // The verbose log shows each worker's stderr, prefixed with the worker and the case it serves.
    expect(run.stderr).toMatch(/\[cli:default#\d\] c0 attempt 1 stderr: thinking about c0/);
    const pids = [...(await logged(project, 'start')), ...(await logged(project, 'child'))];
    expect(pids.length).toBeGreaterThanOrEqual(3);
    expect(pids.filter(processAlive)).toEqual([]);
  }, 60_000);

  it('Ctrl-C stops the run and leaves no agent process behind', async () => {
    project = await createProject({
      'agent.mjs': TEST_AGENT,
      '.agentv/targets.yaml': targets('node agent.mjs'),
      'evals/e.yaml': evalFile(3, ['hang']),
    });
    const child = spawn(
      process.execPath,
      [BIN, 'eval', 'evals/e.yaml', '--out', 'out.jsonl', '--workers', '2'],
      { cwd: project.dir, env: { ...process.env, CI: '1' }, stdio: 'ignore' },
    );
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    const dir = project;
    await waitFor(async () => (await logged(dir, 'child').catch(() => [])).length === 1);
    child.kill('SIGINT');
    expect(await closed).toBe(130);
    const pids = [...(await logged(project, 'start')), ...(await logged(project, 'child'))];
    expect(pids.length).toBeGreaterThanOrEqual(2);
    expect(pids.filter(processAlive)).toEqual([]);
  }, 60_000);

  it('records a response line that is not JSON as the case error, naming the line', async () => {
    project = await createProject({
      'agent.mjs': TEST_AGENT,
      '.agentv/targets.yaml': targets('node agent.mjs'),
      'evals/e.yaml': evalFile(2, ['bad-json']),
    });
    const run = await runAgentv(
      ['eval', 'evals/e.yaml', '--out', 'out.jsonl', '--workers', '1'],
      project.dir,
    );
    expect(run.stdout).toContain('3 cases: 2 passed, 0 failed, 1 errored');
    const bad = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8')).find(
      (line) => line.eval_id === 'bad-json',
    );
    expect(bad?.error).toContain(
      '[cli:default#1]: response line for case "bad-json" is not valid JSON: {"id": "bad-json", "text": oops',
    );
    expect(bad?.attempts).toBe(1);
  }, 60_000);

  it('validate names a mistyped mode and placeholders a persistent command cannot fill', async () => {
    project = await createProject({
      '.agentv/targets.yaml': `targets:
  - name: typo
    provider: cli
    mode: persistant
    command_template: node agent.mjs
  - name: placeholders
    provider: cli
    mode: persistent
    command_template: node agent.mjs --prompt {PROMPT}
  - name: ready
    provider: cli
    command_template: node agent.mjs --prompt {PROMPT}
    start_timeout_seconds: 60
`,
      'evals/e.yaml': evalFile(1),
    });
    // The targets file is given too: validating an eval file checks only the targets it uses.
    const run = await runAgentv(['validate', '.agentv/targets.yaml', 'evals/e.yaml'], project.dir);
    const output = run.stdout + run.stderr;
    expect(run.code).not.toBe(0);
    expect(output).toContain('unknown mode "persistant"; the modes are single and persistent');
    expect(output).toContain('did you mean mode: persistent?');
    expect(output).toContain(
      '{PROMPT} cannot be used with mode: persistent, because the command starts once for many cases',
    );
    expect(output).toContain('start_timeout_seconds');
    expect(output).toContain('applies only to mode: persistent');
  });

  it("with start_timeout_seconds a slow-loading agent is sent cases once ready: its load is in no case's time limit", async () => {
    project = await createProject({
      // Loads for 3 s (a model, a JVM), says so, then answers at once.
      'agent.mjs': `import { createInterface } from 'node:readline';
await new Promise((resolve) => setTimeout(resolve, 3000));
console.log(JSON.stringify({ ready: true }));
for await (const line of createInterface({ input: process.stdin })) {
  const { id, question } = JSON.parse(line);
  console.log(JSON.stringify({ id, text: 'You asked: ' + question }));
}
`,
      '.agentv/targets.yaml': targets(
        'node agent.mjs',
        '    timeout_seconds: 2\n    start_timeout_seconds: 60\n    max_retries: 0\n',
      ),
      'evals/e.yaml': evalFile(4),
    });
    const run = await runAgentv(
      ['eval', 'evals/e.yaml', '--out', 'out.jsonl', '--workers', '2'],
      project.dir,
    );
    expect(run.code, run.stderr).toBe(0);
    const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(lines.map((line) => [line.eval_id, line.passed, line.attempts]).sort()).toEqual([
      ['c0', true, 1],
      ['c1', true, 1],
      ['c2', true, 1],
      ['c3', true, 1],
    ]);
    for (const line of lines) expect(line.duration_ms).toBeLessThan(3000);
    expect(await logged(project, 'start')).toHaveLength(2);
  }, 60_000);
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
