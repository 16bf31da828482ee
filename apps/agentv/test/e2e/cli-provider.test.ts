// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} is targets-file syntax, not a JS template
import { appendFileSync, existsSync } from 'node:fs';
import { chmod, readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { processAlive, refusedUrl, startLocalServer } from '../support/processes.js';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// The `cli` provider end to end: the built agentv binary runs real agent scripts in temp projects.

let project: Project | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  await project?.cleanup();
  project = undefined;
});

const evalFile = (cases: string) => `execution:
  target: default
evalcases:
${cases}`;

/** A case whose prompt is `content` and that passes when the answer contains `expected`. */
const evalCase = (id: string, content: string, expected = 'unlikely to appear') => `
  - id: ${JSON.stringify(id)}
    input_messages:
      - role: user
        content: ${JSON.stringify(content)}
    evaluators:
      - { name: answered, type: contains, value: ${JSON.stringify(expected)} }
`;

// The agent lives at the project root and the eval files in evals/; a relative cwd
// resolves against the eval file's directory (README, "Targets").
const targets = (settings: string) => `targets:
  - name: default
    provider: cli
${/^cwd:/m.test(settings.trim()) ? '' : '    cwd: ..\n'}${settings
  .trim()
  .split('\n')
  .map((line) => `    ${line}`)
  .join('\n')}
`;

async function results(relative = 'out.jsonl'): Promise<ReturnType<typeof parseJsonl>> {
  return parseJsonl(await readFile(project!.file(relative), 'utf8'));
}

async function linesOf(relative: string): Promise<string[]> {
  return (await readFile(project!.file(relative), 'utf8')).trim().split('\n');
}

/** A user or setup error: exit code 2, a one-line message and a hint, no stack trace. */
function expectAbort(run: { code: number | null; stderr: string; stdout: string }) {
  expect(run.code).toBe(2);
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/^agentv: /);
  expect(lines[1]).toMatch(/^ {2}hint: /);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  expect(run.stdout).not.toMatch(/\[\d+\/\d+\]/);
  return lines;
}

describe('Render and execute template', () => {
  const REPORTER = `
import { readFileSync } from 'node:fs';
const args = process.argv.slice(2);
const take = (flag) => args[args.indexOf(flag) + 1];
const between = (from, to) => args.slice(args.indexOf(from) + 1, to ? args.indexOf(to) : undefined);
process.stderr.write('agent: diagnostics only\\n');
// No "text" key, so the whole of stdout is the answer.
process.stdout.write(JSON.stringify({
  prompt: take('--prompt'),
  id: take('--id'),
  attempt: take('--attempt'),
  guidelines: take('--guidelines'),
  promptFile: readFileSync(take('--prompt-file'), 'utf8'),
  inputFile: JSON.parse(readFileSync(take('--input-file'), 'utf8')),
  files: between('--files', '--attachments'),
  attachments: between('--attachments'),
  cwd: process.cwd(),
  mode: process.env.AGENT_MODE,
}));
`;

  it('renders every placeholder, runs in cwd with env, and takes stdout as the answer', async () => {
    project = await createProject({
      'agents/agent.mjs': REPORTER,
      'data/report.txt': 'Q3 revenue grew 12%.',
      'data/style.instructions.md': 'Be terse.',
      '.agentv/targets.yaml': targets(`
command_template: node agent.mjs --prompt {PROMPT} --id {EVAL_ID} --attempt {ATTEMPT} --guidelines {GUIDELINES} --prompt-file {PROMPT_FILE} --input-file {INPUT_FILE} --files {FILES} --attachments {ATTACHMENTS}
files_format: "--file={path}"
attachments_format: "{basename}"
cwd: ../agents
env: { AGENT_MODE: e2e }
max_retries: 0
`),
      'evals/render.yaml': evalFile(`
  - id: render-1
    input_messages:
      - role: user
        content:
          - { type: text, value: "Summarise the report." }
          - { type: file, value: ../data/report.txt }
          - { type: file, value: ../data/style.instructions.md }
    evaluators: [{ name: ran, type: contains, value: "Summarise" }]
`),
    });
    const run = await runAgentv(['eval', 'evals/render.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const [line] = await results();
    const seen = JSON.parse(line!.candidate_answer);
    expect(seen.prompt).toContain('Summarise the report.');
    expect(seen.prompt).toContain('Q3 revenue grew 12%.');
    expect(seen.promptFile).toBe(seen.prompt);
    expect(seen).toMatchObject({
      id: 'render-1',
      attempt: '0',
      // {FILES} lists every file the case references, guideline files first (as AgentV does).
      files: [
        `--file=${project.file('data/style.instructions.md')}`,
        `--file=${project.file('data/report.txt')}`,
      ],
      attachments: ['report.txt'],
      cwd: project.file('agents'),
      mode: 'e2e',
      inputFile: {
        id: 'render-1',
        question: seen.prompt,
        input_files: [project.file('data/report.txt')],
        guideline_files: [project.file('data/style.instructions.md')],
      },
    });
    expect(seen.guidelines).toContain('Be terse.');
    expect(line!.candidate_answer).not.toContain('diagnostics only');
  });

  it('with --verbose logs the command, cwd, duration and stderr, never the env secrets', async () => {
    const secret = 'sk-live-8d3f0a91c2';
    project = await createProject({
      'agent.mjs': `
process.stderr.write('token=' + process.env.AGENT_TOKEN + '\\n');
const prompt = process.argv[2];
if (prompt === 'fail') process.exit(4);
process.stdout.write('You said: ' + prompt);
`,
      '.agentv/targets.yaml': targets(`
command_template: node agent.mjs {PROMPT} --token-hint \${{ AGENT_TOKEN }}
env: { AGENT_TOKEN: "\${{ AGENT_TOKEN }}" }
max_retries: 0
`),
      'evals/v.yaml': evalFile(evalCase('talk', 'hello', 'hello') + evalCase('broken', 'fail')),
    });
    const run = await runAgentv(
      ['eval', 'evals/v.yaml', '--verbose', '--workers', '1', '--out', 'out.jsonl'],
      project.dir,
      { AGENT_TOKEN: secret },
    );
    expect(run.code).toBe(2);
    // Without timeout_seconds a call may take 10 minutes, and --verbose says so.
    expect(run.stderr.split('\n')).toContain(
      "[cli:default] time limit per call: 600 s (the provider's default; set timeout_seconds to change it)",
    );
    expect(run.stderr).toContain(
      '[cli:default] talk attempt 1: node agent.mjs "$AGENTV_PROMPT" --token-hint ***',
    );
    expect(run.stderr).toContain("[cli:default] talk attempt 1 env: AGENTV_PROMPT='hello'");
    expect(run.stderr).toContain(`[cli:default] talk attempt 1 cwd: ${project.dir}`);
    expect(run.stderr).toMatch(
      /\[cli:default\] talk attempt 1 command exited with code 0 after \d+ ms/,
    );
    expect(run.stderr).toMatch(
      /\[cli:default\] broken attempt 1 command exited with code 4 after \d+ ms/,
    );
    expect(run.stderr).toContain('[cli:default] broken attempt 1 stderr: token=***');
    const resultFile = await readFile(project.file('out.jsonl'), 'utf8');
    const broken = parseJsonl(resultFile).find((line) => line.eval_id === 'broken')!;
    // The command was printed already: the hint does not ask for --verbose again.
    expect(broken.error).toContain(
      '(hint: run the command printed above by hand to find out why it fails)',
    );
    expect(broken.error).toContain('command exited with code 4; stderr: token=***');
    for (const output of [run.stdout, run.stderr, resultFile]) {
      expect(output).not.toContain(secret);
    }
  });
});

describe('--verbose and failed cases', () => {
  it("prints each failed case's answer on stderr, quoted, cut and masked; nothing without --verbose", async () => {
    const secret = 'sk-live-77a0c4e2b9';
    project = await createProject({
      'agent.mjs': `
const prompt = process.argv[2];
if (prompt === 'long') process.stdout.write('line one\\nline "two"\\n' + 'x'.repeat(400));
else if (prompt === 'leak') process.stdout.write('my token is ' + process.env.AGENT_TOKEN);
else process.stdout.write('You said: ' + prompt);
`,
      '.agentv/targets.yaml': targets(`
command_template: node agent.mjs {PROMPT}
env: { AGENT_TOKEN: "\${{ AGENT_TOKEN }}" }
max_retries: 0
`),
      'evals/v.yaml': evalFile(
        evalCase('passes', 'hello', 'hello') + evalCase('long', 'long') + evalCase('leak', 'leak'),
      ),
    });
    const args = ['eval', 'evals/v.yaml', '--workers', '1', '--out', 'out.jsonl'];
    const run = await runAgentv([...args, '--verbose'], project.dir, { AGENT_TOKEN: secret });
    expect(run.code).toBe(1);
    const answers = run.stderr.split('\n').filter((line) => line.startsWith('answer of '));
    expect(answers.sort()).toEqual([
      'answer of leak: "my token is ***"',
      `answer of long: "line one\\nline \\"two\\"\\n${'x'.repeat(300 - 20)}"… (120 more characters in the result file)`,
    ]);
    expect(`${run.stdout}${run.stderr}`).not.toContain(secret);
    const quiet = await runAgentv(args, project.dir, { AGENT_TOKEN: secret });
    expect(quiet.code).toBe(1);
    expect(quiet.stderr).not.toContain('answer of');
    expect(quiet.stdout).not.toContain('answer of');
  });
});

describe('secrets from ${{ VAR }}', () => {
  it('masks a value interpolated straight into command_template in logs, errors and results', async () => {
    const secret = 'sk-direct-55e1b7c9a0';
    project = await createProject({
      'agent.mjs': `
process.stderr.write('using key ' + process.argv[3] + '\\n');
process.exit(5);
`,
      '.agentv/targets.yaml': targets(`
command_template: node agent.mjs {PROMPT} \${{ DIRECT_KEY }}
max_retries: 0
`),
      'evals/v.yaml': evalFile(evalCase('leaky', 'hello')),
    });
    const run = await runAgentv(
      ['eval', 'evals/v.yaml', '--verbose', '--out', 'out.jsonl'],
      project.dir,
      {
        DIRECT_KEY: secret,
      },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('node agent.mjs "$AGENTV_PROMPT" ***');
    const resultFile = await readFile(project.file('out.jsonl'), 'utf8');
    expect(parseJsonl(resultFile)[0]!.error).toContain('using key ***');
    for (const output of [run.stdout, run.stderr, resultFile]) {
      expect(output).not.toContain(secret);
    }
  });
});

describe('secrets from ${{ VAR }} in what the agent answers', () => {
  it('are masked in result lines, reports and trace dumps, while graders see the real answer', async () => {
    const secret = 'sk-echoed-7f3a19c4e2';
    project = await createProject({
      'agent.mjs': `
const key = process.env.API_KEY;
process.stdout.write(JSON.stringify({
  text: 'your key is ' + key,
  trace: [{ type: 'tool_call', timestamp: '2025-01-01T00:00:00Z', name: 'auth', input: { header: 'Bearer ' + key } }],
}));
`,
      '.agentv/targets.yaml': targets(`
command_template: node agent.mjs {PROMPT}
env: { API_KEY: "\${{ API_KEY }}" }
`),
      'evals/v.yaml': evalFile(
        evalCase('echo', 'what is my key?', secret) + evalCase('other', 'hello', 'nothing'),
      ),
    });
    const run = await runAgentv(
      [
        'eval',
        'evals/v.yaml',
        '--include-trace',
        '--dump-traces',
        '--junit',
        'junit.xml',
        '--html',
        'report.html',
        '--out',
        'out.jsonl',
      ],
      project.dir,
      { API_KEY: secret },
    );
    expect(run.code).toBe(1);
    const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    const echo = lines.find((line) => line.eval_id === 'echo')!;
    // The contains grader saw the key; the line shows it masked.
    expect(echo.passed).toBe(true);
    expect(echo.candidate_answer).toBe('your key is ***');
    expect(echo.trace).toEqual([
      {
        type: 'tool_call',
        timestamp: '2025-01-01T00:00:00Z',
        name: 'auth',
        input: { header: 'Bearer ***' },
      },
    ]);
    const dump = await readFile(project.file('.agentv/traces/echo_attempt-1.json'), 'utf8');
    expect(JSON.parse(dump).trace[0].input.header).toBe('Bearer ***');
    const written = [
      run.stdout,
      run.stderr,
      await readFile(project.file('out.jsonl'), 'utf8'),
      await readFile(project.file('junit.xml'), 'utf8'),
      await readFile(project.file('report.html'), 'utf8'),
      dump,
    ];
    for (const output of written) expect(output).not.toContain(secret);
  });
});

describe('Timeout and retries', () => {
  it('--agent-timeout sends SIGTERM, then SIGKILL to an agent that ignores it and to its grandchild; no process survives', async () => {
    project = await createProject({
      'agent.mjs': `
import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
// Notes the graceful signal, then ignores it, so only SIGKILL can stop it. Writes to stderr before
// it starts the grandchild: the error must quote it however slowly a loaded machine starts Node.
process.on('SIGTERM', () => appendFileSync('signals.log', 'SIGTERM\\n'));
process.stderr.write('agent: still thinking\\n');
const grandchild = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);"], { stdio: 'ignore' });
writeFileSync('pids.json', JSON.stringify({ agent: process.pid, grandchild: grandchild.pid }));
setInterval(() => {}, 1000);
`,
      '.agentv/targets.yaml': targets('command_template: node agent.mjs {PROMPT}'),
      'evals/slow.yaml': evalFile(evalCase('slow', 'take your time')),
    });
    const run = await runAgentv(
      [
        'eval',
        'evals/slow.yaml',
        '--agent-timeout',
        // Room for Node to start the agent and its grandchild on a loaded machine.
        '3',
        '--max-retries',
        '0',
        '--out',
        'out.jsonl',
      ],
      project.dir,
    );
    expect(run.code).toBe(2);
    const [line] = await results();
    expect(line).toMatchObject({ eval_id: 'slow', passed: false, attempts: 1 });
    expect(line!.error).toMatch(/^timed out after 3s; stderr: agent: still thinking/);
    expect(await linesOf('signals.log')).toEqual(['SIGTERM']);
    const pids = JSON.parse(await readFile(project.file('pids.json'), 'utf8'));
    expect(processAlive(pids.agent)).toBe(false);
    expect(processAlive(pids.grandchild)).toBe(false);
  });

  it('retries a non-zero exit per max_retries: an agent failing twice, then answering, passes after 3 attempts', async () => {
    project = await createProject({
      'agent.mjs': `
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
const calls = existsSync('calls.log') ? readFileSync('calls.log', 'utf8').split('\\n').filter(Boolean).length : 0;
appendFileSync('calls.log', 'attempt ' + process.argv[2] + '\\n');
if (calls < 2) { console.error('flaky failure ' + (calls + 1)); process.exit(1); }
process.stdout.write('finally ok');
`,
      '.agentv/targets.yaml': targets(`
command_template: node agent.mjs {ATTEMPT}
max_retries: 2
`),
      'evals/flaky.yaml': evalFile(evalCase('flaky', 'hi', 'finally ok')),
    });
    const run = await runAgentv(['eval', 'evals/flaky.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(0);
    const [line] = await results();
    expect(line).toMatchObject({ passed: true, attempts: 3, candidate_answer: 'finally ok' });
    expect(line).not.toHaveProperty('error');
    expect(await linesOf('calls.log')).toEqual(['attempt 0', 'attempt 1', 'attempt 2']);
  });

  it('retries a timeout per --max-retries, and the next attempt can pass', async () => {
    // 8 s: the second attempt's Node start counts against the limit too (room for a busy machine).
    project = await createProject({
      'agent.mjs': `
import { appendFileSync } from 'node:fs';
appendFileSync('calls.log', process.pid + '\\n');
if (process.argv[2] === '0') setInterval(() => {}, 1000);
else process.stdout.write('fast this time');
`,
      '.agentv/targets.yaml': targets(`
command_template: node agent.mjs {ATTEMPT}
timeout_seconds: 8
`),
      'evals/t.yaml': evalFile(evalCase('hangs-once', 'hi', 'fast this time')),
    });
    const run = await runAgentv(
      ['eval', 'evals/t.yaml', '--max-retries', '1', '--out', 'out.jsonl'],
      project.dir,
    );
    expect(run.code).toBe(0);
    const [line] = await results();
    expect(line).toMatchObject({ passed: true, attempts: 2 });
    const [hung] = await linesOf('calls.log');
    expect(processAlive(Number(hung))).toBe(false);
  });

  it('after the last retry records the last error with exit code and a truncated stderr excerpt', async () => {
    project = await createProject({
      'agent.mjs': `
import { appendFileSync } from 'node:fs';
appendFileSync('calls.log', 'call\\n');
for (let i = 0; i < 500; i++) process.stderr.write('noise line ' + i + ' '.repeat(40) + '\\n');
process.stderr.write('fatal: quota exceeded on attempt ' + process.argv[2] + '\\n');
process.exit(3);
`,
      '.agentv/targets.yaml': targets('command_template: node agent.mjs {ATTEMPT}'),
      'evals/f.yaml': evalFile(evalCase('always-fails', 'hi')),
    });
    const run = await runAgentv(
      ['eval', 'evals/f.yaml', '--max-retries', '1', '--out', 'out.jsonl'],
      project.dir,
    );
    expect(run.code).toBe(2);
    const [line] = await results();
    expect(line).toMatchObject({ passed: false, attempts: 2, score: 0 });
    // The error's own line first, then the start and the end of stderr on one line,
    // with a marker for the lines cut between them.
    expect(line!.error).toMatch(
      /^command exited with code 3; fatal: quota exceeded on attempt 1; stderr: noise line 0 /,
    );
    expect(line!.error).toMatch(/ \| … \d+ lines cut … \| /);
    expect(line!.error).toContain('fatal: quota exceeded on attempt 1');
    expect(line!.error).not.toContain('noise line 250 ');
    expect(line!.error.length).toBeLessThan(2600);
    expect(await linesOf('calls.log')).toHaveLength(2);
    expect(run.stdout).toContain('always-fails');
  });

  it('retries a command whose program disappears during the run (exit 127)', async () => {
    project = await createProject({
      'agent.sh': '#!/bin/sh\nrm -f "$0"\nexit 127\n',
      '.agentv/targets.yaml': targets(`
command_template: ./agent.sh {PROMPT}
max_retries: 1
`),
      'evals/m.yaml': evalFile(evalCase('missing', 'hi')),
    });
    await chmod(project.file('agent.sh'), 0o755);
    const run = await runAgentv(['eval', 'evals/m.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(2);
    const [line] = await results();
    expect(line).toMatchObject({ attempts: 2, passed: false });
    expect(line!.error).toMatch(/^command exited with code 127; stderr: .*agent\.sh.*not found/);
  });
});

describe('Optional health check', () => {
  /** Logs each call to events.log, where the test's server logs each probe too. */
  const LOGGING_AGENT = `
import { appendFileSync } from 'node:fs';
appendFileSync('events.log', 'case ' + process.argv[2] + '\\n');
process.stdout.write('ok');
`;
  const threeCases = evalFile(
    evalCase('a', 'x', 'ok') + evalCase('b', 'x', 'ok') + evalCase('c', 'x', 'ok'),
  );

  async function serverProject(status: number) {
    const server = await startLocalServer((_request, response) => {
      // The server shares the agent's log, so the order of probe and cases shows.
      appendFileSync(project!.file('events.log'), 'probe\n');
      response.statusCode = status;
      response.end();
    });
    cleanups.push(server.close);
    project = await createProject({
      'agent.mjs': LOGGING_AGENT,
      '.agentv/targets.yaml': targets(`
command_template: node agent.mjs {EVAL_ID}
healthcheck: { type: http, url: "${server.url}/health", timeout_seconds: 5 }
`),
      'evals/h.yaml': threeCases,
    });
    return server;
  }

  it('runs an HTTP probe answering 2xx once, before the first case, not per case', async () => {
    const server = await serverProject(204);
    const run = await runAgentv(['eval', 'evals/h.yaml', '--out', 'out.jsonl'], project!.dir);
    expect(run.code).toBe(0);
    expect(server.requests).toEqual(['/health']);
    const events = await linesOf('events.log');
    expect(events[0]).toBe('probe');
    expect(events.slice(1).sort()).toEqual(['case a', 'case b', 'case c']);
  });

  it('aborts with exit 2 before any case when the probe answers HTTP 500', async () => {
    const server = await serverProject(500);
    const run = await runAgentv(['eval', 'evals/h.yaml'], project!.dir);
    const [message, hint] = expectAbort(run);
    expect(message).toBe(
      `agentv: health check of target "default" failed: GET ${server.url}/health returned HTTP 500 (expected 2xx)`,
    );
    expect(hint).toBe('  hint: the service answered but is not healthy; check its logs');
    expect(await linesOf('events.log')).toEqual(['probe']);
  });

  it('aborts with exit 2 before any case when nothing listens', async () => {
    const url = await refusedUrl('/health');
    project = await createProject({
      'agent.mjs': LOGGING_AGENT,
      '.agentv/targets.yaml': targets(`
command_template: node agent.mjs {EVAL_ID}
healthcheck: { type: http, url: "${url}" }
`),
      'evals/h.yaml': threeCases,
    });
    const run = await runAgentv(['eval', 'evals/h.yaml'], project.dir);
    const [message, hint] = expectAbort(run);
    expect(message).toMatch(
      new RegExp(
        `^agentv: health check of target "default" failed: GET ${url} failed: ECONNREFUSED`,
      ),
    );
    expect(hint).toBe('  hint: start the agent service, or fix healthcheck.url');
    expect(existsSync(project.file('events.log'))).toBe(false);
  });

  it('aborts with exit 2 before any case when the probe command exits 1', async () => {
    project = await createProject({
      'agent.mjs': LOGGING_AGENT,
      '.agentv/targets.yaml': targets(`
command_template: node agent.mjs {EVAL_ID}
healthcheck: { type: command, command_template: "echo 'model server not ready' >&2; exit 1" }
`),
      'evals/h.yaml': threeCases,
    });
    const run = await runAgentv(['eval', 'evals/h.yaml'], project.dir);
    const [message, hint] = expectAbort(run);
    expect(message).toBe(
      `agentv: health check of target "default" failed: command "echo 'model server not ready' >&2; exit 1" exited with code 1; stderr: model server not ready`,
    );
    expect(hint).toBe('  hint: run the health check command by hand to see why it fails');
    expect(existsSync(project.file('events.log'))).toBe(false);
  });

  it("runs a probe command once, in its own cwd (relative to the eval file's folder), before the first case", async () => {
    project = await createProject({
      'agent.mjs': LOGGING_AGENT,
      'probe/check.sh': 'echo probe >> ../events.log\n',
      '.agentv/targets.yaml': targets(`
command_template: node agent.mjs {EVAL_ID}
healthcheck: { type: command, command_template: "sh check.sh", cwd: ../probe }
`),
      'evals/h.yaml': threeCases,
    });
    const run = await runAgentv(['eval', 'evals/h.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(0);
    const events = await linesOf('events.log');
    expect(events[0]).toBe('probe');
    expect(events.filter((event) => event === 'probe')).toHaveLength(1);
    expect(events).toHaveLength(4);
  });
});

describe('Required template fields', () => {
  /** Runs one case against `targetsYaml` and returns stderr of the (failing) validation. */
  async function validationErrors(targetsYaml: string): Promise<string> {
    project = await createProject({
      '.agentv/targets.yaml': targetsYaml,
      'evals/a.yaml': evalFile(evalCase('a', 'hi')),
    });
    const run = await runAgentv(['eval', 'evals/a.yaml'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).not.toMatch(/^\s+at /m);
    return run.stderr;
  }

  it('rejects a target without command_template, or with an empty one, naming target and field', async () => {
    const missing = await validationErrors(targets('max_retries: 0'));
    expect(missing).toMatch(
      /^error: \.agentv\/targets\.yaml:\d+(:\d+)?: target "default": command_template: is required \(hint: set command_template/m,
    );
    await project!.cleanup();
    const empty = await validationErrors(targets('command_template: "  "'));
    expect(empty).toMatch(/target "default": command_template: must not be empty/);
  });

  it('checks every cli setting, naming the target and the field', async () => {
    const stderr = await validationErrors(
      targets(`
command_template: node agent.mjs {PROMPT}
files_format: "--file"
attachments_format: 42
cwd: /no-such-dir-of-agentv
env: [ "A=1" ]
verbose: "yes"
healthcheck: { type: http, url: "ftp://example.test/health", timeout_seconds: 0 }
`),
    );
    for (const expected of [
      'target "default": files_format: must contain {path} or {basename}',
      'target "default": attachments_format: must be a string',
      'target "default": cwd: directory /no-such-dir-of-agentv does not exist',
      'target "default": env: must be a mapping of variable names to values',
      'target "default": verbose: must be true or false',
      'target "default": healthcheck.url: must be an http:// or https:// URL',
      'target "default": healthcheck.timeout_seconds: must be greater than 0',
    ]) {
      expect(stderr).toContain(expected);
    }
  });

  it('checks timeout_seconds, workers, max_retries and provider_batching, naming the target and the field', async () => {
    const stderr = await validationErrors(
      targets(`
command_template: node agent.mjs {PROMPT}
timeout_seconds: -1
workers: 0
max_retries: lots
provider_batching: "yes"
`),
    );
    for (const expected of [
      /target "default": timeout_seconds must be greater than 0 \(hint: /,
      /target "default": workers must be at least 1 \(hint: /,
      /target "default": max_retries must be a number, not text \(hint: /,
      /target "default": provider_batching must be true or false.*\(hint: /,
    ]) {
      expect(stderr).toMatch(expected);
    }
  });

  it('accepts the camelCase spelling of every key', async () => {
    project = await createProject({
      'agents/agent.mjs': `
process.stdout.write(JSON.stringify({ text: 'files: ' + process.argv.slice(2).join(' ') }));
`,
      'agents/probe.txt': '',
      'data/a.txt': 'A',
      '.agentv/targets.yaml': `
targets:
  - name: default
    provider: cli
    commandTemplate: node agent.mjs {FILES} / {ATTACHMENTS}
    filesFormat: "--file={basename}"
    attachmentsFormat: "@{basename}"
    cwd: ../agents
    timeoutSeconds: 10
    providerBatching: false
    maxRetries: 0
    workers: 2
    verbose: false
    healthcheck: { type: command, commandTemplate: "test -f probe.txt", cwd: ../agents, timeoutSeconds: 5 }
`,
      'evals/c.yaml': evalFile(`
  - id: camel
    input_messages:
      - role: user
        content: [{ type: text, value: "read it" }, { type: file, value: ../data/a.txt }]
    evaluators: [{ name: files, type: equals, value: "files: --file=a.txt / @a.txt" }]
`),
    });
    const run = await runAgentv(['eval', 'evals/c.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect((await results())[0]).toMatchObject({ passed: true, attempts: 1 });
  });
});

describe('Placeholder substitution rules', () => {
  const ARGV_AGENT = `process.stdout.write(JSON.stringify(process.argv.slice(2)));`;

  it('shell-quotes every value, so hostile prompts, ids and file paths arrive intact and run nothing', async () => {
    const prompt = `it's "quoted" \`touch pwned\` $(touch pwned) ; touch pwned && echo | cat > pwned\n\tünïcødé 🚀 \\ $HOME {EVAL_ID}`;
    const fileName = "it's $(touch pwned) `x`.txt";
    project = await createProject({
      'agent.mjs': ARGV_AGENT,
      [`data/${fileName}`]: 'attached',
      '.agentv/targets.yaml': targets(`
command_template: node agent.mjs {PROMPT} {EVAL_ID} {FILES}
max_retries: 0
`),
      'evals/q.yaml': evalFile(`
  - id: "x'; touch pwned; echo '"
    input_messages:
      - role: user
        content:
          - { type: text, value: ${JSON.stringify(prompt)} }
    evaluators: [{ name: any, type: regex, pattern: "." }]
  - id: with-file
    input_messages:
      - role: user
        content: [{ type: file, value: ${JSON.stringify(`../data/${fileName}`)} }]
    evaluators: [{ name: any, type: regex, pattern: "." }]
`),
    });
    const run = await runAgentv(['eval', 'evals/q.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(0);
    const lines = await results();
    const hostile = lines.find((line) => line.eval_id !== 'with-file')!;
    expect(JSON.parse(hostile.candidate_answer)).toEqual([prompt, "x'; touch pwned; echo '"]);
    const withFile = lines.find((line) => line.eval_id === 'with-file')!;
    expect(JSON.parse(withFile.candidate_answer).at(-1)).toBe(project.file(`data/${fileName}`));
    expect(existsSync(project.file('pwned'))).toBe(false);
  });

  it('rejects an unknown placeholder, listing the supported ones', async () => {
    project = await createProject({
      '.agentv/targets.yaml': targets('command_template: node agent.mjs {QUESTION}'),
      'evals/a.yaml': evalFile(evalCase('a', 'hi')),
    });
    const run = await runAgentv(['eval', 'evals/a.yaml'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'target "default": command_template: unknown placeholder {QUESTION}; supported placeholders are {PROMPT}, {PROMPT_FILE}, {GUIDELINES}, {EVAL_ID}, {ATTEMPT}, {REPEAT}, {FILES}, {ATTACHMENTS}, {OUTPUT_FILE}, {INPUT_FILE}, {TRACE_FILE}, {WORKSPACE}, {EVAL_DIR}, {TURN}, {CONVERSATION_ID}, {CONVERSATION_FILE}',
    );
  });

  it('fails a prompt over the one-argument limit or with a NUL byte, pointing to {PROMPT_FILE}, which carries it', async () => {
    const long = 'a long prompt '.repeat(15_000);
    project = await createProject({
      'agent.mjs': `
import { readFileSync } from 'node:fs';
const [mode, value] = process.argv.slice(2);
const prompt = mode === 'file' ? readFileSync(value, 'utf8') : value;
process.stdout.write('received ' + Buffer.byteLength(prompt) + ' bytes');
`,
      '.agentv/targets.yaml': `
targets:
  - name: argv
    provider: cli
    cwd: ..
    command_template: node agent.mjs argv {PROMPT}
  - name: file
    provider: cli
    cwd: ..
    command_template: node agent.mjs file {PROMPT_FILE}
`,
      'evals/long.yaml': `
evalcases:
  - id: long
    input_messages: [{ role: user, content: ${JSON.stringify(long)} }]
    evaluators: [{ name: all, type: contains, value: "received ${long.length} bytes" }]
  - id: nul
    input_messages: [{ role: user, content: "before\\0after" }]
    evaluators: [{ name: all, type: contains, value: "received 12 bytes" }]
`,
    });
    const viaArgv = await runAgentv(
      ['eval', 'evals/long.yaml', '--target', 'argv', '--out', 'argv.jsonl'],
      project.dir,
    );
    expect(viaArgv.code).toBe(2);
    const argvLines = await results('argv.jsonl');
    const longLine = argvLines.find((line) => line.eval_id === 'long')!;
    expect(longLine.attempts).toBe(1);
    expect(longLine.error).toMatch(
      /^the value of \{PROMPT\} is \d+ bytes, over the 131057 bytes the environment variable AGENTV_PROMPT can hold .*\(hint: pass long values through files: use \{PROMPT_FILE\} in command_template\)$/,
    );
    const nulLine = argvLines.find((line) => line.eval_id === 'nul')!;
    expect(nulLine.attempts).toBe(1);
    expect(nulLine.error).toBe(
      'the value of {PROMPT} contains a NUL byte, which no command argument or environment variable can carry (hint: use {PROMPT_FILE} in command_template so the command reads it from a file)',
    );

    const viaFile = await runAgentv(
      ['eval', 'evals/long.yaml', '--target', 'file', '--out', 'file.jsonl'],
      project.dir,
    );
    expect(viaFile.code).toBe(0);
    expect((await results('file.jsonl')).map((line) => line.passed)).toEqual([true, true]);
  });
});

describe('Health check schema', () => {
  it('rejects unsupported types and missing properties with specific errors', async () => {
    project = await createProject({
      '.agentv/targets.yaml': `
targets:
  - name: tcp_check
    provider: cli
    cwd: ..
    command_template: node agent.mjs {PROMPT}
    healthcheck: { type: tcp, port: 8080 }
  - name: http_no_url
    provider: cli
    cwd: ..
    command_template: node agent.mjs {PROMPT}
    healthcheck: { type: http, timeout_seconds: 5 }
  - name: command_no_template
    provider: cli
    cwd: ..
    command_template: node agent.mjs {PROMPT}
    healthcheck: { type: command, cwd: . }
  - name: no_type
    provider: cli
    cwd: ..
    command_template: node agent.mjs {PROMPT}
    healthcheck: { timeout_seconds: 5 }
`,
      'evals/a.yaml': `
evalcases:
${['tcp_check', 'http_no_url', 'command_no_template', 'no_type']
  .map(
    (name) => `  - id: ${name}
    execution: { target: ${name} }
    input_messages: [{ role: user, content: hi }]
    evaluators: [{ name: c, type: contains, value: hi }]
`,
  )
  .join('')}`,
    });
    const run = await runAgentv(['eval', 'evals/a.yaml'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    for (const expected of [
      'target "tcp_check": healthcheck.type: unsupported type "tcp"; the supported types are http and command',
      'target "http_no_url": healthcheck.url: is required for type: http',
      'target "command_no_template": healthcheck.command_template: is required for type: command',
      'target "no_type": healthcheck.type: is required; the supported types are http and command',
    ]) {
      expect(run.stderr).toContain(expected);
    }
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });
});

describe('single-case output', () => {
  const now = '2025-01-01T00:00:00.000Z';
  /** Writes the JSON of its first argument's name from answers.json to {OUTPUT_FILE}. */
  const ANSWER_AGENT = `
import { readFileSync, writeFileSync } from 'node:fs';
const [id, out] = process.argv.slice(2);
writeFileSync(out, JSON.parse(readFileSync('answers.json', 'utf8'))[id]);
`;

  async function answer(answers: Record<string, string>, cases: string, ...flags: string[]) {
    project = await createProject({
      'agent.mjs': ANSWER_AGENT,
      'answers.json': JSON.stringify(answers),
      '.agentv/targets.yaml': targets(`
command_template: node agent.mjs {EVAL_ID} {OUTPUT_FILE}
max_retries: 0
`),
      'evals/o.yaml': evalFile(cases),
    });
    const run = await runAgentv(
      ['eval', 'evals/o.yaml', '--out', 'out.jsonl', '--include-trace', ...flags],
      project.dir,
    );
    const lines = await results();
    return { run, byId: (id: string) => lines.find((line) => line.eval_id === id)! };
  }

  const toolCase = (id: string) => `
  - id: ${id}
    input_messages: [{ role: user, content: "refund order 42" }]
    evaluators:
      - { name: says, type: contains, value: "Refunded" }
      - name: tools
        type: tool_trajectory
        mode: in_order
        expected: [{ tool: lookupOrder, input: { id: 42 } }, { tool: refund }]
`;

  it('Single JSON output: text is the answer and valid trace events are kept', async () => {
    const { run, byId } = await answer(
      {
        json: JSON.stringify({
          text: 'Refunded.',
          trace: [
            { type: 'tool_call', timestamp: now, name: 'lookupOrder', input: { id: 42 } },
            { type: 'not_an_event', timestamp: now },
            { type: 'tool_call', timestamp: now, name: 'refund' },
          ],
        }),
      },
      toolCase('json'),
    );
    expect(run.code).toBe(0);
    expect(byId('json')).toMatchObject({
      candidate_answer: 'Refunded.',
      passed: true,
      trace: [
        { type: 'tool_call', name: 'lookupOrder', input: { id: 42 } },
        { type: 'tool_call', name: 'refund' },
      ],
      trace_summary: { eventCount: 2, toolNames: ['lookupOrder', 'refund'] },
    });
  });

  it('Plain text output: content that is not a JSON object is the whole answer', async () => {
    const { run, byId } = await answer(
      {
        plain: 'Refunded.\nThe money arrives in 3 days.\n',
        array: '["Refunded."]',
        broken: '{"text": "Refunded."',
      },
      evalCase('plain', 'x', 'arrives in 3 days') +
        evalCase('array', 'x', '["Refunded."]') +
        evalCase('broken', 'x', '{"text": "Refunded."'),
    );
    expect(run.code).toBe(0);
    expect(byId('plain').candidate_answer).toBe('Refunded.\nThe money arrives in 3 days.');
    expect(byId('array').candidate_answer).toBe('["Refunded."]');
    expect(byId('broken').candidate_answer).toBe('{"text": "Refunded."');
    expect(byId('plain').trace_summary).toBeNull();
  });

  it('Single case output with output_messages, with tool calls in order: converted, attached and graded', async () => {
    const { run, byId } = await answer(
      {
        messages: JSON.stringify({
          text: 'Refunded.',
          output_messages: [
            {
              role: 'assistant',
              tool_calls: [
                { tool: 'lookupOrder', input: { id: 42 }, output: { total: 30 } },
                { tool: 'refund', input: { amount: 30 }, output: 'ok' },
              ],
            },
            { role: 'assistant', content: 'Refunded.' },
          ],
        }),
      },
      toolCase('messages'),
    );
    expect(run.code).toBe(0);
    const line = byId('messages');
    expect(line).toMatchObject({ candidate_answer: 'Refunded.', passed: true });
    expect(line.output_messages).toEqual([
      {
        role: 'assistant',
        tool_calls: [
          { tool: 'lookupOrder', input: { id: 42 }, output: { total: 30 } },
          { tool: 'refund', input: { amount: 30 }, output: 'ok' },
        ],
      },
      { role: 'assistant', content: 'Refunded.' },
    ]);
    expect(line.trace_summary).toMatchObject({ toolNames: ['lookupOrder', 'refund'] });
  });

  it('Backward compatibility with trace field: trace and output_messages are both kept', async () => {
    const { run, byId } = await answer(
      {
        both: JSON.stringify({
          text: 'Refunded.',
          trace: [
            { type: 'tool_call', timestamp: now, name: 'lookupOrder', input: { id: 42 } },
            { type: 'tool_call', timestamp: now, name: 'refund' },
          ],
          output_messages: [{ role: 'assistant', tool_calls: [{ tool: 'somethingElse' }] }],
        }),
      },
      toolCase('both'),
    );
    expect(run.code).toBe(0);
    const line = byId('both');
    expect(line.passed).toBe(true);
    expect(line.trace.map((event: { name: string }) => event.name)).toEqual([
      'lookupOrder',
      'refund',
    ]);
    expect(line.output_messages).toEqual([
      { role: 'assistant', tool_calls: [{ tool: 'somethingElse' }] },
    ]);
  });
});
