// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} is targets-file syntax, not a JS template
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type LocalServer, startLocalServer } from '../support/processes.js';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// The `http` provider end to end: the built agentv binary against an agent served
// by a local HTTP server, which records every request body, header and arrival time.

const TOKEN = 'agent-token-0123456789';

interface Received {
  // biome-ignore lint/suspicious/noExplicitAny: request bodies of a known shape
  body: any;
  authorization: string | undefined;
  at: number;
}

let project: Project | undefined;
let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  await project?.cleanup();
  project = undefined;
  server = undefined;
});

/**
 * The agent: answers `{ data: { answer, steps } }`. Case `flaky` gets a 500 first, case
 * `busy` a 429 with `Retry-After: 1` first; `secret` echoes the Authorization header in a 401.
 */
async function startAgent(): Promise<{ server: LocalServer; received: Received[] }> {
  const received: Received[] = [];
  const started = await startLocalServer((request: IncomingMessage, response: ServerResponse) => {
    const at = Date.now();
    let raw = '';
    request.on('data', (chunk) => {
      raw += chunk;
    });
    request.on('end', () => {
      if (request.url === '/health') {
        response.writeHead(200).end('ok');
        return;
      }
      const body = JSON.parse(raw);
      received.push({ body, authorization: request.headers.authorization, at });
      const calls = received.filter((entry) => entry.body.case === body.case).length;
      const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        response.writeHead(status, { 'content-type': 'application/json', ...headers });
        response.end(JSON.stringify(value));
      };
      if (body.case === 'flaky' && calls === 1) return json(500, { error: 'warming up' });
      if (body.case === 'busy' && calls === 1) {
        return json(429, { error: 'slow down' }, { 'retry-after': '1' });
      }
      if (body.case === 'quota') {
        return json(429, { error: 'daily quota used up' }, { 'retry-after': '300' });
      }
      if (body.case === 'secret') {
        return json(401, { error: `bad credentials: ${request.headers.authorization}` });
      }
      if (body.case === 'html') {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<html>maintenance</html>');
        return;
      }
      const now = new Date().toISOString();
      json(200, {
        data: {
          answer: `Refund for ${body.case}: ${body.question}`,
          steps: [
            { type: 'tool_call', timestamp: now, name: 'lookup_order', input: { id: 42 } },
            { type: 'tool_result', timestamp: now, name: 'lookup_order', output: 'shipped' },
          ],
        },
      });
    });
  });
  return { server: started, received };
}

const TARGETS = (url: string, extra = '') => `targets:
  - name: agent
    provider: http
    url: ${url}
    headers:
      Authorization: Bearer \${{ AGENT_TOKEN }}
    body:
      question: "{PROMPT}"
      case: "{EVAL_ID}"
      attempt: "{ATTEMPT}"
    response_path: data.answer
    trace_path: data.steps
    max_retries: 2
${extra}`;

const evalCase = (id: string, question: string) => `
  - id: ${id}
    input_messages:
      - role: user
        content: ${JSON.stringify(question)}
    evaluators:
      - { name: mentions-refund, type: contains, value: Refund }
      - name: looked-up
        type: tool_trajectory
        mode: in_order
        expected: [{ tool: lookup_order }]
`;

const EVALS = (...cases: string[]) => `execution:
  target: agent
evalcases:
${cases.join('')}`;

describe('http targets', () => {
  it('answers with a trace, retries a 500 and a 429 (waiting for Retry-After), and sends the body as JSON', async () => {
    const agent = await startAgent();
    server = agent.server;
    project = await createProject({
      '.env': `AGENT_TOKEN=${TOKEN}\n`,
      '.agentv/targets.yaml': TARGETS(`${server.url}/chat`, '    workers: 1\n'),
      'evals/refunds.yaml': EVALS(
        evalCase('ok', 'Where is my "refund"?\nOrder #42'),
        evalCase('flaky', 'Refund please'),
        evalCase('busy', 'Refund now'),
      ),
    });

    const run = await runAgentv(['eval', 'evals/refunds.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    const byId = new Map(lines.map((line) => [line.eval_id, line]));
    expect(byId.get('ok')).toMatchObject({
      passed: true,
      attempts: 1,
      candidate_answer: 'Refund for ok: Where is my "refund"?\nOrder #42',
    });
    expect(byId.get('ok')!.trace_summary.toolNames).toEqual(['lookup_order']);
    expect(byId.get('flaky')).toMatchObject({ passed: true, attempts: 2 });
    expect(byId.get('busy')).toMatchObject({ passed: true, attempts: 2 });

    // The body: placeholders replaced, the prompt JSON-escaped, the attempt a number.
    const first = agent.received.find((entry) => entry.body.case === 'ok')!;
    expect(first.body).toEqual({
      question: 'Where is my "refund"?\nOrder #42',
      case: 'ok',
      attempt: 0,
    });
    // The header's ${{ AGENT_TOKEN }} came from .env.
    expect(first.authorization).toBe(`Bearer ${TOKEN}`);
    expect(
      agent.received
        .filter((entry) => entry.body.case === 'flaky')
        .map((entry) => entry.body.attempt),
    ).toEqual([0, 1]);
    // The retry after the 429 waited for Retry-After: 1, as the server's clock saw it.
    const busy = agent.received.filter((entry) => entry.body.case === 'busy');
    expect(busy).toHaveLength(2);
    expect(busy[1]!.at - busy[0]!.at).toBeGreaterThanOrEqual(990);
    // The token never reaches the result file.
    expect(await readFile(project.file('out.jsonl'), 'utf8')).not.toContain(TOKEN);
  });

  it('does not retry a 429 whose Retry-After is beyond a minute, and says so; --verbose shows the waits it did', async () => {
    const agent = await startAgent();
    server = agent.server;
    project = await createProject({
      '.env': `AGENT_TOKEN=${TOKEN}\n`,
      '.agentv/targets.yaml': TARGETS(`${server.url}/chat`, '    workers: 1\n'),
      'evals/quota.yaml': EVALS(evalCase('quota', 'Refund please'), evalCase('busy', 'Refund')),
    });

    const run = await runAgentv(
      ['eval', 'evals/quota.yaml', '--out', 'out.jsonl', '--verbose'],
      project.dir,
    );
    expect(run.code).toBe(2);
    const byId = new Map(
      parseJsonl(await readFile(project.file('out.jsonl'), 'utf8')).map((line) => [
        line.eval_id,
        line,
      ]),
    );
    expect(agent.received.filter((entry) => entry.body.case === 'quota')).toHaveLength(1);
    expect(byId.get('quota')).toMatchObject({ attempts: 1, passed: false });
    expect(byId.get('quota')!.error).toBe(
      `http target "agent": POST ${server.url}/chat returned HTTP 429: {"error":"daily quota used up"}; the service asked to wait 300 s before another attempt (Retry-After), longer than AgentV waits between attempts (60 s), so it was not retried (hint: run the case again once the service takes requests again; to send fewer at once, set a lower \`workers\` on target "agent" (now 1))`,
    );
    // The wait a Retry-After within a minute asked for is logged, in the provider's own tag.
    expect(byId.get('busy')).toMatchObject({ attempts: 2, passed: true });
    expect(run.stderr.split('\n')).toContain(
      '[http:agent] busy attempt 1 failed; waiting 1 s (Retry-After) before attempt 2',
    );
  });

  it('records clear errors: a status, a body that is not JSON, a path that matches nothing; secrets masked', async () => {
    const agent = await startAgent();
    server = agent.server;
    project = await createProject({
      '.env': `AGENT_TOKEN=${TOKEN}\n`,
      '.agentv/targets.yaml': TARGETS(`${server.url}/chat`),
      '.agentv/wrong-path.yaml': TARGETS(`${server.url}/chat`).replace(
        'response_path: data.answer',
        'response_path: data.reply',
      ),
      'evals/bad.yaml': EVALS(evalCase('secret', 'hi'), evalCase('html', 'hi')),
      'evals/ok.yaml': EVALS(evalCase('ok', 'hi')),
    });

    const run = await runAgentv(['eval', 'evals/bad.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(2);
    const content = await readFile(project.file('out.jsonl'), 'utf8');
    expect(content).not.toContain(TOKEN);
    const byId = new Map(parseJsonl(content).map((line) => [line.eval_id, line]));
    // 401 is not retried; the echoed token is masked.
    expect(byId.get('secret')).toMatchObject({ attempts: 1 });
    expect(byId.get('secret')!.error).toContain(
      `POST ${server.url}/chat returned HTTP 401: {"error":"bad credentials: ***"}`,
    );
    expect(byId.get('html')!.error).toContain(
      'answered with a body that is not JSON: <html>maintenance</html>',
    );

    const wrong = await runAgentv(
      ['eval', 'evals/ok.yaml', '--targets', '.agentv/wrong-path.yaml', '--out', 'wrong.jsonl'],
      project.dir,
    );
    expect(wrong.code).toBe(2);
    const [line] = parseJsonl(await readFile(project.file('wrong.jsonl'), 'utf8'));
    expect(line!.error).toContain(
      'response_path "data.reply" matched nothing: "data" has no key "reply"; its keys are "answer", "steps"',
    );
  });

  it('runs the health check before the first case and stops when it fails', async () => {
    const agent = await startAgent();
    server = agent.server;
    project = await createProject({
      '.env': `AGENT_TOKEN=${TOKEN}\n`,
      '.agentv/targets.yaml': TARGETS(
        `${server.url}/chat`,
        `    healthcheck: { url: "${server.url}/health", expect_status: 204 }\n`,
      ),
      'evals/ok.yaml': EVALS(evalCase('ok', 'hi')),
    });
    const run = await runAgentv(['eval', 'evals/ok.yaml'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `health check of target "agent" failed: GET ${server.url}/health returned HTTP 200 (expected 204)`,
    );
    expect(agent.received).toHaveLength(0);
  });

  it('agentv validate checks http targets without sending a request', async () => {
    const agent = await startAgent();
    server = agent.server;
    project = await createProject({
      '.env': `AGENT_TOKEN=${TOKEN}\n`,
      '.agentv/targets.yaml': `targets:
  - name: agent
    provider: http
    url: ${server.url}/chat
    healthcheck: { url: "${server.url}/health" }
    body: { question: "{PROMPT}" }
    response_path: data.answer
  - name: broken
    provider: http
    url: localhost:8080/chat
    method: SEND
    body: { question: "{PROMT}" }
    response_path: data..answer
    respone_path: data.answer
`,
      'evals/ok.yaml': EVALS(evalCase('ok', 'hi')),
    });
    const run = await runAgentv(['validate'], project.dir);
    expect(run.code).toBe(1);
    const lines = run.stdout.split('\n');
    const about = (text: string) => lines.filter((line) => line.includes(text));
    expect(about('target "agent"')).toEqual([]);
    expect(about('must be an http:// or https:// URL')).toEqual([
      expect.stringMatching(
        /^error: \.agentv\/targets\.yaml:\d+(:\d+)?: target "broken": url: must be an http:\/\/ or https:\/\/ URL, not localhost:/,
      ),
    ]);
    expect(run.stdout).toContain('target "broken": method: unknown method "SEND"');
    expect(run.stdout).toContain(
      'target "broken": body.question: unknown placeholder {PROMT}; did you mean {PROMPT}?',
    );
    expect(run.stdout).toContain('target "broken": response_path: has an empty segment');
    expect(about('respone_path')).toEqual([expect.stringMatching(/^warning: .*respone_path/)]);
    expect(server.requests).toEqual([]);
  });
});
