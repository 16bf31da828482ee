// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} is targets-file syntax, not a JS template
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { chatReply, type LlmServer, startLlmServer } from '../support/llm-servers.js';
import { type LocalServer, startLocalServer } from '../support/processes.js';
import {
  BIN,
  collectRun,
  createProject,
  ECHO_AGENT,
  type Project,
  parseJsonl,
  runAgentv,
} from '../support/project.js';

// LLM targets end to end: the built agentv binary against a local server that
// speaks OpenAI chat completions.

const API_KEY = 'sk-e2e-secret-0123456789';

let project: Project | undefined;
let server: LocalServer | undefined;
let llmServer: LlmServer | undefined;
afterEach(async () => {
  await server?.close();
  await llmServer?.close();
  llmServer = undefined;
  await project?.cleanup();
  project = undefined;
  server = undefined;
});

// biome-ignore lint/suspicious/noExplicitAny: request bodies of a known protocol
type Body = any;

/** A chat completions server; `status` 200 answers with usage, others with an OpenAI error body. */
async function startChatServer(status = 200): Promise<{ server: LocalServer; bodies: Body[] }> {
  const bodies: Body[] = [];
  const started = await startLocalServer((request: IncomingMessage, response: ServerResponse) => {
    let raw = '';
    request.on('data', (chunk) => {
      raw += chunk;
    });
    request.on('end', () => {
      bodies.push(JSON.parse(raw));
      response.writeHead(status, { 'content-type': 'application/json' });
      if (status !== 200) {
        response.end(
          JSON.stringify({
            error: {
              message: `Incorrect API key provided: ${API_KEY}.`,
              type: 'invalid_request_error',
              code: 'invalid_api_key',
            },
          }),
        );
        return;
      }
      response.end(
        JSON.stringify({
          id: 'chatcmpl-e2e',
          object: 'chat.completion',
          created: 1_700_000_000,
          model: 'gpt-4o-mini',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: 'Your refund of $20 is on its way.' },
              finish_reason: 'stop',
            },
          ],
          usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
        }),
      );
    });
  });
  return { server: started, bodies };
}

async function llmProject(baseUrl: string): Promise<Project> {
  return createProject({
    '.env': `LLM_BASE_URL=${baseUrl}/v1\nLLM_API_KEY=${API_KEY}\n`,
    '.agentv/targets.yaml': `targets:
  - name: llm
    provider: openai-compatible
    base_url: \${{ LLM_BASE_URL }}
    api_key: \${{ LLM_API_KEY }}
    model: gpt-4o-mini
    max_retries: 2
`,
    'evals/refund.yaml': `execution:
  target: llm
evalcases:
  - id: refund
    input_messages:
      - role: system
        content: You are a support agent.
      - role: user
        content: Where is my refund?
    evaluators:
      - { name: mentions-refund, type: contains, value: refund }
`,
  });
}

describe('LLM targets', () => {
  it('records usage and cost, answers a second run from the cache, and --no-cache calls again', async () => {
    const chat = await startChatServer();
    server = chat.server;
    project = await llmProject(server.url);

    const first = await runAgentv(
      ['eval', 'evals/refund.yaml', '--out', 'first.jsonl'],
      project.dir,
    );
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(chat.bodies).toHaveLength(1);
    expect(chat.bodies[0].model).toBe('gpt-4o-mini');
    expect(chat.bodies[0].messages).toEqual([
      { role: 'system', content: 'You are a support agent.' },
      { role: 'user', content: 'Where is my refund?' },
    ]);
    const [line] = parseJsonl(await readFile(project.file('first.jsonl'), 'utf8'));
    expect(line).toMatchObject({ eval_id: 'refund', passed: true });
    expect(line!.usage).toMatchObject({ input_tokens: 100, output_tokens: 20, total_tokens: 120 });
    expect(line!.cost_usd).toBeCloseTo((100 * 0.15 + 20 * 0.6) / 1e6, 12);
    expect(line).not.toHaveProperty('cached');
    expect(first.stdout).toContain('Tokens: 100 in, 20 out  Cost: ~$0.000027');

    const second = await runAgentv(
      ['eval', 'evals/refund.yaml', '--out', 'second.jsonl'],
      project.dir,
    );
    expect(second.code).toBe(0);
    expect(chat.bodies).toHaveLength(1);
    const [cachedLine] = parseJsonl(await readFile(project.file('second.jsonl'), 'utf8'));
    expect(cachedLine).toMatchObject({
      passed: true,
      cached: true,
      candidate_answer: 'Your refund of $20 is on its way.',
      // Answered from the cache: no new tokens were spent (the first run's line has them).
      usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
    });
    expect(cachedLine).not.toHaveProperty('cost_usd');
    expect(second.stdout).toContain('Cache: 1 of 1 answers');
    expect(second.stdout).toContain('Tokens: 0 in, 0 out');

    const third = await runAgentv(
      ['eval', 'evals/refund.yaml', '--out', 'third.jsonl', '--no-cache'],
      project.dir,
    );
    expect(third.code).toBe(0);
    expect(chat.bodies).toHaveLength(2);
    const [freshLine] = parseJsonl(await readFile(project.file('third.jsonl'), 'utf8'));
    expect(freshLine).not.toHaveProperty('cached');
  });

  it('retries a connection reset while the answer is read, and --verbose shows the failed attempt and the wait', async () => {
    const llm = await startLlmServer(() => chatReply('Your refund of $20 is on its way.'));
    llmServer = llm;
    llm.queue({ ...chatReply('never read'), cutMidBody: true });
    project = await llmProject(llm.url);

    const run = await runAgentv(
      ['eval', 'evals/refund.yaml', '--out', 'out.jsonl', '--verbose'],
      project.dir,
    );
    expect(run.code).toBe(0);
    expect(llm.requests).toHaveLength(2);
    const [line] = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(line).toMatchObject({ eval_id: 'refund', attempts: 2, passed: true });
    const verbose = run.stderr.split('\n');
    expect(verbose).toContainEqual(
      expect.stringMatching(
        /^\[openai-compatible:llm\] refund attempt 1: failed after \d+ ms: openai-compatible target "llm": the connection to the API at 127\.0\.0\.1:\d+ broke while the answer was read: UND_ERR_SOCKET \(other side closed\)$/,
      ),
    );
    expect(verbose).toContainEqual(
      expect.stringMatching(
        /^\[openai-compatible:llm\] refund attempt 1 failed; waiting \d\.\d s \(backoff\) before attempt 2$/,
      ),
    );
    expect(verbose).toContainEqual(
      expect.stringMatching(/^\[openai-compatible:llm\] refund attempt 2: gpt-4o-mini answered/),
    );
    expect(run.stderr).not.toContain(API_KEY);
  });

  it('reports a refused key as the case error, in one line, without the key', async () => {
    const chat = await startChatServer(401);
    server = chat.server;
    project = await llmProject(server.url);

    const run = await runAgentv(['eval', 'evals/refund.yaml', '--out', 'out.jsonl'], project.dir);
    // An errored case exits 2.
    expect(run.code).toBe(2);
    // Not retried: 401 fails at once.
    expect(chat.bodies).toHaveLength(1);
    const written = await readFile(project.file('out.jsonl'), 'utf8');
    const [line] = parseJsonl(written);
    expect(line!.error).toMatch(
      /^openai-compatible target "llm": HTTP 401: Incorrect API key provided: \*\*\*\./,
    );
    for (const text of [written, run.stdout, run.stderr]) expect(text).not.toContain(API_KEY);
  });

  it('does not load the AI SDK for --version or a run without LLM targets', async () => {
    // A module hook that reports every AI SDK module node resolves: the SDK's own files, or a
    // chunk of the CLI's bundle holding SDK code (the bundler heads each module with its path).
    // The CLI's bundle is CommonJS, which node's module hooks do not see on Node 20: a wrapper
    // of Module.prototype.load reports the chunks it requires.
    const resolveHook = `import { readFileSync } from 'node:fs';
const sdk = /node_modules\\/(ai|@ai-sdk)\\//;
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  const url = result.url;
  const sdkChunk = url.includes('/bundle/') && sdk.test(readFileSync(new URL(url), 'utf8'));
  if (sdk.test(url) || sdkChunk) {
    process.stderr.write('SDK ' + result.url + ' ');
  }
  return result;
}`;
    const hook = `import Module, { register } from 'node:module';
import { readFileSync } from 'node:fs';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(resolveHook)}));
const sdk = /node_modules\\/(ai|@ai-sdk)\\//;
const load = Module.prototype.load;
Module.prototype.load = function (filename) {
  const sdkChunk = filename.includes('/bundle/') && sdk.test(readFileSync(filename, 'utf8'));
  if (sdk.test(filename) || sdkChunk) process.stderr.write('SDK ' + filename + ' ');
  return load.call(this, filename);
};
`;
    project = await createProject({
      'hook.mjs': hook,
      'agent.mjs': ECHO_AGENT,
      '.agentv/targets.yaml': `targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node agent.mjs --prompt {PROMPT} --out {OUTPUT_FILE}
`,
      'evals/echo.yaml': `evalcases:
  - id: echo
    input_messages: [{ role: user, content: hello }]
    evaluators: [{ name: echoed, type: contains, value: hello }]
`,
    });
    const run = (args: string[]) =>
      collectRun(
        spawn(process.execPath, ['--import', project!.file('hook.mjs'), BIN, ...args], {
          cwd: project!.dir,
          env: { ...process.env, NO_COLOR: '1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      );
    // The hook sees the SDK when the CLI does load it: a run with an LLM target.
    const chat = await startChatServer();
    server = chat.server;
    const llm = await llmProject(server.url);
    try {
      const control = await collectRun(
        spawn(process.execPath, ['--import', project.file('hook.mjs'), BIN, 'eval', 'evals'], {
          cwd: llm.dir,
          env: { ...process.env, NO_COLOR: '1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      );
      expect(control.code).toBe(0);
      expect(chat.bodies).toHaveLength(1);
      expect(control.stderr).toContain('SDK ');
    } finally {
      await llm.cleanup();
    }

    const version = await run(['--version']);
    expect(version.code).toBe(0);
    expect(version.stderr).toBe('');
    const evalRun = await run(['eval', 'evals/echo.yaml', '--out', 'out.jsonl']);
    expect(evalRun.code).toBe(0);
    expect(evalRun.stderr).toBe('');
  });
});
