// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} is targets-file syntax, not a JS template
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { chatReply } from '../support/llm-servers.js';
import { type LocalServer, startLocalServer } from '../support/processes.js';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// Issue 16, end to end through the built CLI against real processes and servers on 127.0.0.1:
// --agent-timeout, --max-retries and --workers win over the target's settings for every
// provider (the one rule in core's `callTimeout`); attempts are counted from 1 wherever a
// user sees them; every --verbose line names its case and attempt; a case's duration_ms
// counts its retries and waits, and is what was measured when the agent reports none.

let project: Project | undefined;
let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  await project?.cleanup();
  project = undefined;
  server = undefined;
});

// biome-ignore lint/suspicious/noExplicitAny: request bodies of a known shape
type Body = any;

/**
 * An agent over HTTP that records each body: answers `{answer}` after `delayMs(body)` ms
 * (none by default), unless `reply` answered (and returned true) instead.
 */
async function startAgent(
  options: {
    delayMs?: (body: Body) => number;
    reply?: (body: Body, calls: number, response: ServerResponse) => boolean;
  } = {},
): Promise<{ server: LocalServer; bodies: Body[] }> {
  const bodies: Body[] = [];
  const started = await startLocalServer((request: IncomingMessage, response: ServerResponse) => {
    let raw = '';
    request.on('data', (chunk) => {
      raw += chunk;
    });
    request.on('end', () => {
      const body = JSON.parse(raw);
      bodies.push(body);
      const calls = bodies.filter((entry) => entry.case === body.case).length;
      const answer = () => {
        if (options.reply?.(body, calls, response)) return;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ answer: `Refund for ${body.case}` }));
      };
      const delay = options.delayMs?.(body) ?? 0;
      if (delay > 0) setTimeout(answer, delay);
      else answer();
    });
  });
  return { server: started, bodies };
}

const httpTarget = (name: string, url: string, extra: string) => `  - name: ${name}
    provider: http
    url: ${url}
    headers:
      Authorization: Bearer \${{ AGENT_TOKEN }}
    body:
      question: "{PROMPT}"
      case: "{EVAL_ID}"
      attempt: "{ATTEMPT}"
    response_path: answer
${extra}`;

const evalFile = (target: string, ...ids: string[]) => `execution:
  target: ${target}
evalcases:
${ids
  .map(
    (id) => `  - id: ${id}
    input_messages: [{ role: user, content: "refund ${id}" }]
    evaluators: [{ name: refund, type: contains, value: Refund }]
`,
  )
  .join('')}`;

/** The result lines of `file` by case id. */
async function resultsById(file: string) {
  const lines = parseJsonl(await readFile(project!.file(file), 'utf8'));
  return Object.fromEntries(lines.map((line) => [line.eval_id, line]));
}

/** The lines of `text` that start with `prefix`. */
const linesOf = (text: string, prefix: string) =>
  text.split('\n').filter((line) => line.startsWith(prefix));

describe('command-line flags win over the target settings for every provider', () => {
  it('http: --agent-timeout wins over timeout_seconds both ways; --max-retries over max_retries', async () => {
    const agent = await startAgent({ delayMs: (body) => (body.case === 'slow' ? 2500 : 0) });
    server = agent.server;
    project = await createProject({
      '.env': 'AGENT_TOKEN=token-0123456789\n',
      '.agentv/targets.yaml': `targets:
${httpTarget('short', `${server.url}/chat`, '    timeout_seconds: 1\n    max_retries: 2\n')}
${httpTarget('long', `${server.url}/chat`, '    timeout_seconds: 30\n    max_retries: 2\n')}`,
      'evals/short.yaml': evalFile('short', 'slow'),
      'evals/long.yaml': evalFile('long', 'slow'),
    });

    // The target allows 1 s, the agent needs 2.5 s, the flag allows 15 s (room for a busy
    // machine; a timeout would show as a second attempt): the flag wins.
    const longer = await runAgentv(
      ['eval', 'evals/short.yaml', '--agent-timeout', '15', '--out', 'longer.jsonl'],
      project.dir,
    );
    expect(longer.code).toBe(0);
    expect((await resultsById('longer.jsonl')).slow).toMatchObject({ passed: true, attempts: 1 });

    // The target allows 30 s, the flag 1 s: the flag wins, and the hint names only the flag
    // (raising timeout_seconds would change nothing). --max-retries 0 wins over max_retries: 2.
    const shorter = await runAgentv(
      [
        'eval',
        'evals/long.yaml',
        '--agent-timeout',
        '1',
        '--max-retries',
        '0',
        '--out',
        'shorter.jsonl',
      ],
      project.dir,
    );
    expect(shorter.code).toBe(2);
    expect((await resultsById('shorter.jsonl')).slow).toMatchObject({
      attempts: 1,
      error: `http target "long": POST ${server.url}/chat: no answer within 1 s (hint: raise --agent-timeout (it wins over the target's timeout_seconds))`,
    });
  }, 60_000);

  it('http: without the flag, the timeout hint names both ways to give a call more time', async () => {
    const agent = await startAgent({ delayMs: () => 2500 });
    server = agent.server;
    project = await createProject({
      '.env': 'AGENT_TOKEN=token-0123456789\n',
      '.agentv/targets.yaml': `targets:
${httpTarget('short', `${server.url}/chat`, '    timeout_seconds: 1\n    max_retries: 0\n')}`,
      'evals/short.yaml': evalFile('short', 'slow'),
    });
    const run = await runAgentv(['eval', 'evals/short.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(2);
    expect((await resultsById('out.jsonl')).slow.error).toBe(
      `http target "short": POST ${server.url}/chat: no answer within 1 s (hint: raise timeout_seconds on the target (or pass --agent-timeout))`,
    );
  }, 60_000);

  it('http: --workers wins over the target workers', async () => {
    // Each request is held until three are waiting (or for 5 s): three at once means three workers.
    const waiting: ServerResponse[] = [];
    let most = 0;
    const answer = (response: ServerResponse) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ answer: 'Refund' }));
    };
    server = await startLocalServer((request, response) => {
      request.resume();
      request.on('end', () => {
        waiting.push(response);
        most = Math.max(most, waiting.length);
        if (waiting.length === 3) for (const held of waiting.splice(0)) answer(held);
        setTimeout(() => {
          if (waiting.includes(response)) {
            waiting.splice(waiting.indexOf(response), 1);
            answer(response);
          }
        }, 5000);
      });
    });
    project = await createProject({
      '.env': 'AGENT_TOKEN=token-0123456789\n',
      '.agentv/targets.yaml': `targets:
${httpTarget('one', `${server.url}/chat`, '    workers: 1\n')}`,
      'evals/three.yaml': evalFile('one', 'case-a', 'case-b', 'case-c'),
    });
    const run = await runAgentv(
      ['eval', 'evals/three.yaml', '--workers', '3', '--out', 'out.jsonl'],
      project.dir,
    );
    expect(run.code).toBe(0);
    expect(most).toBe(3);
  }, 60_000);

  it('persistent cli: --agent-timeout wins over timeout_seconds both ways; --workers over workers', async () => {
    project = await createProject({
      // Answers after 2.5 s, except `hang`, which never answers.
      'agent.mjs': `import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
appendFileSync('starts.log', 'start ' + process.pid + '\\n');
for await (const line of createInterface({ input: process.stdin })) {
  const { id, question } = JSON.parse(line);
  if (question.includes('hang')) continue;
  const delay = question.includes('slow') ? 2500 : 300;
  setTimeout(() => console.log(JSON.stringify({ id, text: 'Refund: ' + question })), delay);
}
`,
      '.agentv/targets.yaml': `targets:
  - name: short
    provider: cli
    mode: persistent
    cwd: ..
    command_template: node agent.mjs
    timeout_seconds: 1
    workers: 1
  - name: long
    provider: cli
    mode: persistent
    cwd: ..
    command_template: node agent.mjs
    timeout_seconds: 30
    max_retries: 2
`,
      'evals/short.yaml': evalFile('short', 'slow'),
      'evals/long.yaml': evalFile('long', 'hang'),
      'evals/four.yaml': evalFile('short', 'case-a', 'case-b', 'case-c', 'case-d'),
    });

    const longer = await runAgentv(
      ['eval', 'evals/short.yaml', '--agent-timeout', '15', '--out', 'longer.jsonl'],
      project.dir,
    );
    expect(longer.code).toBe(0);
    expect((await resultsById('longer.jsonl')).slow).toMatchObject({ passed: true, attempts: 1 });

    const shorter = await runAgentv(
      [
        'eval',
        'evals/long.yaml',
        '--agent-timeout',
        '1',
        '--max-retries',
        '0',
        '--out',
        'shorter.jsonl',
      ],
      project.dir,
    );
    expect(shorter.code).toBe(2);
    const { hang } = await resultsById('shorter.jsonl');
    expect(hang.attempts).toBe(1);
    expect(hang.error).toMatch(
      /^timed out after 1s: \[cli:long#1\] \(pid \d+\) gave no response line for case "hang" and was killed \(hint: raise --agent-timeout \(it wins over the target's timeout_seconds\), or make the agent answer faster; the worker is restarted for the next case\)$/,
    );

    // workers: 1 on the target, --workers 2 on the command line: two processes serve four cases.
    // The target's 1 s limit also covers a worker's start, which a loaded machine can stretch
    // past it (a timed-out case restarts its worker); this part is about workers, not time.
    const before = linesOf(await readFile(project.file('starts.log'), 'utf8'), 'start').length;
    const wide = await runAgentv(
      ['eval', 'evals/four.yaml', '--workers', '2', '--agent-timeout', '30', '--out', 'wide.jsonl'],
      project.dir,
    );
    expect(wide.code).toBe(0);
    const results = parseJsonl(await readFile(project.file('wide.jsonl'), 'utf8'));
    expect(results.map((result) => result.attempts)).toEqual([1, 1, 1, 1]);
    const after = linesOf(await readFile(project.file('starts.log'), 'utf8'), 'start').length;
    expect(after - before).toBe(2);
  }, 60_000);

  it('LLM targets: --agent-timeout wins over timeout_seconds', async () => {
    server = await startLocalServer((request, response) => {
      request.resume();
      request.on('end', () => {
        setTimeout(() => {
          const reply = chatReply('Refund approved');
          response.writeHead(reply.status, { 'content-type': 'application/json' });
          response.end(JSON.stringify(reply.body));
        }, 2500);
      });
    });
    project = await createProject({
      '.env': `LLM_BASE_URL=${server.url}/v1\nLLM_API_KEY=sk-test-0123456789\n`,
      '.agentv/targets.yaml': `targets:
  - name: llm
    provider: openai-compatible
    base_url: \${{ LLM_BASE_URL }}
    api_key: \${{ LLM_API_KEY }}
    model: gpt-4o-mini
    timeout_seconds: 1
    max_retries: 0
`,
      'evals/llm.yaml': evalFile('llm', 'slow'),
    });
    const run = await runAgentv(
      ['eval', 'evals/llm.yaml', '--agent-timeout', '15', '--no-cache', '--out', 'out.jsonl'],
      project.dir,
    );
    expect(run.code).toBe(0);
    expect((await resultsById('out.jsonl')).slow).toMatchObject({ passed: true, attempts: 1 });
  }, 60_000);
});

describe('--verbose with several workers: every line names its case and attempt (from 1)', () => {
  it('http: the request, headers and status lines of every attempt', async () => {
    const agent = await startAgent({
      reply: (_body, _calls, response) => {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end('{"error":"down"}');
        return true;
      },
    });
    server = agent.server;
    project = await createProject({
      '.env': 'AGENT_TOKEN=token-0123456789\n',
      '.agentv/targets.yaml': `targets:
${httpTarget('always500', `${server.url}/chat`, '    max_retries: 1\n')}`,
      'evals/three.yaml': evalFile('always500', 'case-a', 'case-b', 'case-c'),
    });
    const run = await runAgentv(
      ['eval', 'evals/three.yaml', '--workers', '3', '--verbose', '--out', 'out.jsonl'],
      project.dir,
    );
    expect(run.code).toBe(2);
    const lines = linesOf(run.stderr, '[http:always500]');
    // Three lines per attempt, and the wait before each case's second attempt.
    expect(lines).toHaveLength(3 * 2 * 3 + 3);
    for (const line of lines) {
      expect(line).toMatch(
        /^\[http:always500\] case-[abc] attempt [12](: POST | headers: | HTTP 500 after \d+ ms$| failed; waiting \d+(\.\d)? s \(backoff\) before attempt 2$)/,
      );
    }
    for (const id of ['case-a', 'case-b', 'case-c']) {
      for (const attempt of [1, 2]) {
        const tag = `[http:always500] ${id} attempt ${attempt}`;
        expect(lines).toContain(`${tag}: POST ${server.url}/chat`);
        expect(lines).toContain(
          `${tag} headers: accept: ***, content-type: ***, Authorization: ***`,
        );
      }
    }
    // {ATTEMPT} stays 0-based (AgentV 1.x compatibility): the shown attempt minus one.
    expect(
      agent.bodies.filter((body) => body.case === 'case-a').map((body) => body.attempt),
    ).toEqual([0, 1]);
  }, 60_000);

  it('persistent cli: worker lines name the case and attempt the worker serves; the request line counts attempts from 1', async () => {
    project = await createProject({
      // Logs to stderr at start and per case; the first attempt of `crash` exits, the others
      // answer only once the retry of `crash` has arrived (so that retry finds every worker busy
      // and starts a fourth, however late each worker started).
      'bad.mjs': `import { appendFileSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
process.stderr.write('loading\\n');
for await (const line of createInterface({ input: process.stdin })) {
  const { id, question, attempt } = JSON.parse(line);
  appendFileSync('attempts.log', id + ' ' + attempt + '\\n');
  process.stderr.write('working on ' + id + '\\n');
  if (question.includes('crash') && attempt === 1) process.exit(3);
  const until = Date.now() + 20000;
  const answer = () => {
    if (!readFileSync('attempts.log', 'utf8').includes('crash 2') && Date.now() < until) {
      setTimeout(answer, 50);
      return;
    }
    console.log(JSON.stringify({ id, text: 'Refund: ' + question }));
  };
  answer();
}
`,
      '.agentv/targets.yaml': `targets:
  - name: bad
    provider: cli
    mode: persistent
    cwd: ..
    command_template: node bad.mjs
    max_retries: 1
`,
      'evals/three.yaml': evalFile('bad', 'case-a', 'case-b', 'crash'),
    });
    const run = await runAgentv(
      ['eval', 'evals/three.yaml', '--workers', '3', '--verbose', '--out', 'out.jsonl'],
      project.dir,
    );
    expect(run.code).toBe(0);
    const attempts = (await readFile(project.file('attempts.log'), 'utf8')).trim().split('\n');
    expect(attempts.sort()).toEqual(['case-a 1', 'case-b 1', 'crash 1', 'crash 2']);
    expect((await resultsById('out.jsonl')).crash).toMatchObject({ passed: true, attempts: 2 });

    const lines = linesOf(run.stderr, '[cli:bad#');
    for (const [id, attempt] of [
      ['case-a', 1],
      ['case-b', 1],
      ['crash', 1],
      ['crash', 2],
    ] as const) {
      expect(lines).toContainEqual(
        expect.stringMatching(
          new RegExp(`^\\[cli:bad#\\d\\] ${id} attempt ${attempt} stderr: working on ${id}$`),
        ),
      );
    }
    // Each start names the case it starts for, and the process's first lines belong to it too.
    const starts = lines.filter((line) => line.includes(' starting: '));
    expect(starts.length).toBe(4);
    for (const line of starts) {
      expect(line).toMatch(
        /^\[cli:bad#\d\] (case-a|case-b|crash) attempt [12] starting: node bad\.mjs$/,
      );
    }
    expect(lines.filter((line) => / started pid \d+ in /.test(line))).toHaveLength(4);
    for (const line of lines.filter((line) => / started pid | stderr: loading$/.test(line))) {
      expect(line).toMatch(
        /^\[cli:bad#\d\] (case-a|case-b|crash) attempt [12] (started pid \d+ in |stderr: loading$)/,
      );
    }
    expect(lines).toContainEqual(
      expect.stringMatching(/^\[cli:bad#\d\] crash attempt 1 pid \d+ exited with code 3$/),
    );
  }, 60_000);
});

describe('duration_ms is the time the case spent being answered', () => {
  it('http: a case that passed after a 429 with Retry-After counts the wait, like an errored case', async () => {
    const agent = await startAgent({
      reply: (body, calls, response) => {
        if (body.case !== 'busy' || calls > 1) return false;
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' });
        response.end('{"error":"slow down"}');
        return true;
      },
    });
    server = agent.server;
    project = await createProject({
      '.env': 'AGENT_TOKEN=token-0123456789\n',
      '.agentv/targets.yaml': `targets:
${httpTarget('agent', `${server.url}/chat`, '    max_retries: 2\n')}`,
      'evals/busy.yaml': evalFile('agent', 'busy'),
    });
    const run = await runAgentv(['eval', 'evals/busy.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(0);
    const { busy } = await resultsById('out.jsonl');
    expect(busy).toMatchObject({ passed: true, attempts: 2 });
    // Not only the last call's few ms: the 429 and the 2 s it asked to wait count.
    expect(busy.duration_ms).toBeGreaterThanOrEqual(1990);
  }, 60_000);

  it("persistent cli: the README client's cases show the time AgentV measured, not a stub's 0 ms", async () => {
    const source = await readFile(
      new URL('../../../../examples/persistent/agent.mjs', import.meta.url),
      'utf8',
    );
    project = await createProject({
      'agent.mjs': source,
      '.agentv/targets.yaml': `targets:
  - name: node_agent
    provider: cli
    mode: persistent
    cwd: ..
    command_template: node agent.mjs
`,
      'evals/one.yaml': evalFile('node_agent', 'case-a').replace(
        'value: Refund',
        'value: You asked',
      ),
    });
    const run = await runAgentv(['eval', 'evals/one.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(0);
    // The worker's first case includes node starting and loading the client: never 0 ms.
    const duration = (await resultsById('out.jsonl'))['case-a'].duration_ms;
    expect(duration).toBeGreaterThan(0);
    expect(run.stdout).toContain(`PASS  case-a  1.000  (${duration} ms)`);
  }, 60_000);
});
