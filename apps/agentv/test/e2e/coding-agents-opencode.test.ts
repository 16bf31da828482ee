import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureAgentCli } from '../../../../packages/provider-coding-agents/src/test-support/agent-cli.js';
import {
  type ChatCompletionsServer,
  type ChatScriptTurn,
  startChatCompletionsServer,
} from '../../../../packages/provider-coding-agents/src/test-support/chat-completions-server.js';
import {
  type OutsideTraffic,
  watchOutsideTraffic,
} from '../../../../packages/provider-coding-agents/src/test-support/outside-traffic.js';
import { parseJsonl, runAgentv } from '../support/project.js';

// The opencode provider through the built CLI, running the real opencode CLI (pinned, installed
// into the cache folder by `ensureAgentCli`) against a scripted OpenAI chat-completions server
// on 127.0.0.1, on examples/coding-agents: three coding tasks graded by the repository's tests.
// The model is gpt-4.1: opencode offers it `edit` and `write` (GPT-5 models get `apply_patch`).

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const EXAMPLE = path.join(ROOT, 'examples/coding-agents');
const SECRET = 'sk-scripted-secret-1234';

/** What a competent model does for each task of the example, found by words of its prompt. */
const SOLUTIONS: [string, ChatScriptTurn[]][] = [
  [
    'src/slugify.js',
    [
      { shell: 'node --test test/slugify.test.js || true' },
      { shell: `sed -i "s/'_')/'-')/" src/slugify.js` },
      { answer: 'Fixed slugify: words are now joined with dashes.' },
    ],
  ],
  [
    'wordCount',
    [
      // opencode refuses to edit a file the session has not read.
      { tool: 'read', input: { filePath: 'src/word-count.js' } },
      {
        tool: 'edit',
        input: {
          filePath: 'src/word-count.js',
          oldString: "export function wordCount(_text) {\n  throw new Error('not implemented');",
          newString:
            'export function wordCount(text) {\n  return text.split(/\\s+/).filter((word) => word !== "").length;',
        },
      },
      { answer: 'Implemented wordCount.' },
    ],
  ],
  [
    'capitalize',
    [
      {
        tool: 'write',
        input: {
          filePath: 'src/capitalize.js',
          content:
            'export function capitalize(text) {\n  return text.charAt(0).toUpperCase() + text.slice(1);\n}\n',
        },
      },
      { answer: 'Created src/capitalize.js.' },
    ],
  ],
];

const solve = (prompt: string): ChatScriptTurn[] =>
  SOLUTIONS.find(([marker]) => prompt.includes(marker))?.[1] ?? [{ answer: 'No task found.' }];
const lazy = (): ChatScriptTurn[] => [
  { answer: 'Done: all three tasks are complete and the tests pass.' },
];

let opencode: string | undefined;
let scratch: string;
const servers: ChatCompletionsServer[] = [];

/**
 * The npm registry opencode is pointed at (`npm_config_registry`): a server on 127.0.0.1 that
 * answers 404 and keeps the paths asked for. opencode installs its plugin package from the
 * registry at start unless the call's config folder already has it; no call may ask.
 */
let registry: Server;
let registryUrl: string;
const registryRequests: string[] = [];
/** The proxy every call is given: what opencode asks of hosts other than the model's. */
let outside: OutsideTraffic;

beforeAll(async () => {
  outside = await watchOutsideTraffic();
  registry = createServer((request, response) => {
    registryRequests.push(`${request.method} ${request.url}`);
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
  });
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
  registryUrl = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/`;
  opencode = await ensureAgentCli('opencode');
}, 600_000);

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  await new Promise((resolve) => registry?.close(resolve));
  await outside?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** A copy of the example with a targets file pointing the opencode target at `server`. */
async function exampleAgainst(
  server: ChatCompletionsServer,
  target: Record<string, unknown> = {},
): Promise<string> {
  scratch ??= await mkdtemp(path.join(tmpdir(), 'agentv-opencode-'));
  const dir = await mkdtemp(path.join(scratch, 'example-'));
  await cp(EXAMPLE, dir, { recursive: true });
  const settings = {
    executable: opencode,
    base_url: server.baseUrl,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${{ VAR }} is targets-file syntax
    api_key: '${{ SCRIPTED_KEY }}',
    model: 'gpt-4.1',
    timeout_seconds: 180,
    env: { npm_config_registry: registryUrl, ...outside.env },
    ...target,
  };
  const lines = Object.entries(settings)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `    ${key}: ${JSON.stringify(value)}`);
  await writeFile(
    path.join(dir, '.agentv/targets.yaml'),
    `targets:\n  - name: opencode\n    provider: opencode\n${lines.join('\n')}\n`,
  );
  return dir;
}

async function evalExample(dir: string, extra: string[] = []) {
  const out = path.join(dir, 'out.jsonl');
  const run = await runAgentv(
    [
      'eval',
      'evals',
      '--target',
      'opencode',
      '--out',
      out,
      '--include-trace',
      '--workers',
      '3',
      ...extra,
    ],
    dir,
    { SCRIPTED_KEY: SECRET },
  );
  const lines = parseJsonl(await readFile(out, 'utf8').catch(() => ''));
  return { ...run, out, byId: Object.fromEntries(lines.map((line) => [line.eval_id, line])) };
}

/** Processes whose command line names `text`, other than this one. */
async function processesNaming(text: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(text)) {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
      const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
      found.push(
        `${pid}: ${stat.slice(0, 200)} | ${status
          .split('\n')
          .filter((l) => /^(State|Threads|PPid|NSpgid|NSsid)/.test(l))
          .join(' ')} | ${cmdline.replaceAll('\0', ' ')}`,
      );
    }
  }
  return found;
}

// opencode takes seconds to start and about a second a model step on a busy 2-core machine.
describe('provider: opencode, the real CLI against a scripted model', { timeout: 400_000 }, () => {
  it('does the three coding tasks: tests pass, canonical tool names, tokens and cost, transcripts', async (context) => {
    if (!opencode) return context.skip();
    const server = await startChatCompletionsServer(solve);
    servers.push(server);
    const dir = await exampleAgainst(server);
    const { code, stderr, byId, out } = await evalExample(dir, ['--dump-traces']);
    expect(stderr).not.toContain(SECRET);
    expect(code, stderr).toBe(0);
    for (const id of ['fix-slugify', 'implement-word-count', 'create-capitalize']) {
      expect(byId[id], id).toMatchObject({ passed: true, score: 1 });
      expect(byId[id].usage.input_tokens).toBeGreaterThan(0);
      expect(byId[id].usage.output_tokens).toBeGreaterThan(0);
      // opencode prices a model at a base_url at 0: gpt-4.1's price from the table gives the cost.
      expect(byId[id].cost_usd).toBeGreaterThan(0);
    }
    const names = (id: string) =>
      byId[id].trace
        .filter((event: { type: string }) => event.type === 'tool_call')
        .map((event: { name: string; raw_name: string }) => `${event.name}/${event.raw_name}`);
    expect(names('fix-slugify')).toEqual(['shell/bash', 'shell/bash']);
    expect(names('implement-word-count')).toEqual(['read_file/read', 'edit_file/edit']);
    expect(names('create-capitalize')).toEqual(['write_file/write']);
    // Three model steps of 120 input and 30 output tokens each (the title request is not a step).
    expect(byId['fix-slugify'].usage).toMatchObject({ input_tokens: 360, output_tokens: 90 });
    // Each tool call is timed by opencode itself: its result comes at or after the call.
    const shell = byId['fix-slugify'].trace.filter(
      (event: { raw_name?: string }) => event.raw_name === 'bash',
    );
    expect(Date.parse(shell[1].timestamp)).toBeGreaterThanOrEqual(Date.parse(shell[0].timestamp));
    expect(shell[1].metadata).toMatchObject({ exit_code: 0, status: 'completed' });
    // Every call of the scripted server came with the key and asked for the target's model.
    expect(
      server.requests.every((request) => request.headers.authorization === `Bearer ${SECRET}`),
    ).toBe(true);
    expect(new Set(server.requests.map((request) => request.body.model))).toEqual(
      new Set(['gpt-4.1']),
    );
    // Nothing but the model: three opencode runs never asked the npm registry for a package.
    expect(registryRequests).toEqual([]);
    // Nor any other host (update checks, telemetry).
    expect(outside.hosts).toEqual([]);

    // The raw event stream of each case and attempt, beside the results and in the trace dump.
    const transcripts = path.join(path.dirname(out), 'out.transcripts');
    expect((await readdir(transcripts)).sort()).toEqual([
      'create-capitalize_attempt-1.jsonl',
      'fix-slugify_attempt-1.jsonl',
      'implement-word-count_attempt-1.jsonl',
    ]);
    const transcript = await readFile(
      path.join(transcripts, 'fix-slugify_attempt-1.jsonl'),
      'utf8',
    );
    expect(transcript.split('\n')[0]).toContain('"step_start"');
    expect(transcript).toContain('"tool_use"');
    const dump = JSON.parse(
      await readFile(path.join(dir, '.agentv/traces/fix-slugify_attempt-1.json'), 'utf8'),
    );
    expect(dump.transcript.at(-1)).toMatchObject({ type: 'step_finish' });
  });

  it('stops opencode mid-run at the step whose tokens cross max_tokens', async (context) => {
    if (!opencode) return context.skip();
    // Six command steps, then an answer: 150 tokens a step, 300 > 250 when the second finishes.
    const server = await startChatCompletionsServer(() => [
      ...[1, 2, 3, 4, 5, 6].map((n) => ({ shell: `echo step ${n}` })),
      { answer: 'All six steps ran.' },
    ]);
    servers.push(server);
    const dir = await exampleAgainst(server, { max_retries: 0 });
    await writeFile(
      path.join(dir, 'budget.yaml'),
      `execution:
  target: opencode
  evaluators:
    - { name: done, type: contains, value: "All six steps ran." }
evalcases:
  - id: long-task
    input_messages: [{ role: user, content: "Run the six steps." }]
    execution: { max_tokens: 250 }
`,
    );
    const out = path.join(dir, 'budget.jsonl');
    const run = await runAgentv(['eval', 'budget.yaml', '--out', out, '--include-trace'], dir, {
      SCRIPTED_KEY: SECRET,
    });
    expect(run.code, run.stderr).toBe(1);
    // opencode asks for its next step as soon as one finishes: that request may have gone out
    // before it was stopped, none after it.
    expect(server.conversation().length).toBeGreaterThanOrEqual(2);
    expect(server.conversation().length).toBeLessThanOrEqual(3);
    const line = parseJsonl(await readFile(out, 'utf8'))[0]!;
    expect(line).toMatchObject({
      passed: false,
      failure_class: 'budget',
      usage: { input_tokens: 240, output_tokens: 60 },
    });
    expect(line.error).toBeUndefined();
    expect(line.misses[0]).toBe('over budget: 300 tokens > max_tokens 250 (the agent was stopped)');
    expect(
      line.trace.filter((event: { type: string }) => event.type === 'tool_call').length,
    ).toBeGreaterThanOrEqual(2);
  });

  it('fails all three tasks when the model claims success without doing anything', async (context) => {
    if (!opencode) return context.skip();
    const server = await startChatCompletionsServer(lazy);
    servers.push(server);
    const { code, byId } = await evalExample(await exampleAgainst(server));
    expect(code).toBe(1);
    for (const id of ['fix-slugify', 'implement-word-count', 'create-capitalize']) {
      expect(byId[id], id).toMatchObject({ passed: false });
      expect(byId[id].candidate_answer).toContain('tests pass');
      expect(byId[id].error).toBeUndefined();
    }
  });

  it('read_only takes edits and commands away: the edit is refused, the tests fail, the run warns', async (context) => {
    if (!opencode) return context.skip();
    const server = await startChatCompletionsServer(solve);
    servers.push(server);
    const dir = await exampleAgainst(server, { permission_mode: 'read_only' });
    const { byId, stderr } = await evalExample(dir, ['--eval-id', 'implement-word-count']);
    const line = byId['implement-word-count'];
    expect(line).toMatchObject({ passed: false });
    expect(line.error).toBeUndefined();
    // opencode offers neither edit nor bash: the model's edit became a call of its `invalid` tool.
    const offered = server.conversation()[0]?.body.tools as { function: { name: string } }[];
    const names = offered.map((tool) => tool.function.name);
    expect(names).toContain('read');
    expect(names).not.toContain('edit');
    expect(names).not.toContain('bash');
    const calls = line.trace.filter((event: { type: string }) => event.type === 'tool_call');
    expect(calls.map((event: { name: string }) => event.name)).toEqual(['read_file', 'invalid']);
    expect(calls[1].input).toMatchObject({ tool: 'edit' });
    expect(stderr).toContain("opencode's model called a tool opencode did not offer (edit)");
  });

  it('stops a hung agent at timeout_seconds with nothing left running', async (context) => {
    if (!opencode) return context.skip();
    const server = await startChatCompletionsServer(() => [{ hang: true }]);
    servers.push(server);
    // Long enough for opencode to start and send its first model request on a busy machine
    // (a CI run's other suites on two cores: its tasks took 25–54 s there, and 30 s was not).
    const dir = await exampleAgainst(server, { timeout_seconds: 90, max_retries: 0 });
    const workspaces = path.join(dir, 'ws');
    const started = Date.now();
    const { code, byId, stderr } = await evalExample(dir, [
      '--eval-id',
      'fix-slugify',
      '--workspace-root',
      workspaces,
    ]);
    expect(code, stderr).toBe(2);
    expect(byId['fix-slugify'].error).toContain(
      'opencode did not finish within 90 s; it and every process it started were stopped',
    );
    // Stopped near its limit, not after opencode's own request timeout (5 minutes).
    expect(Date.now() - started).toBeLessThan(200_000);
    expect(server.conversation().length).toBeGreaterThan(0);
    // No process of this run's opencode (its --dir is under the workspace root) is left.
    expect(await processesNaming(workspaces)).toEqual([]);
  });

  it('names each failure: not installed, refused key, unknown model, no final answer', async (context) => {
    if (!opencode) return context.skip();
    const server = await startChatCompletionsServer((prompt) =>
      prompt.includes('slugify')
        ? [{ status: 401, error: 'Incorrect API key provided: sk-sc***' }]
        : prompt.includes('wordCount')
          ? [
              {
                status: 404,
                error: 'The model `gpt-4.1` does not exist or you do not have access to it.',
                code: 'model_not_found',
              },
            ]
          : [{ shell: 'true' }, { silent: true }],
    );
    servers.push(server);
    const { byId, stderr } = await evalExample(await exampleAgainst(server, { max_retries: 0 }));
    expect(byId['fix-slugify'].error).toMatch(
      /opencode: the model API at http:\/\/127\.0\.0\.1:\d+\/v1 refused the credentials: 401 Incorrect API key/,
    );
    expect(byId['implement-word-count'].error).toMatch(
      /opencode: the model API at .* does not know the model "gpt-4\.1": 404 .*does not exist/,
    );
    expect(byId['create-capitalize'].error).toContain('opencode ended without a final answer');
    expect(stderr).not.toContain('SyntaxError');

    const missing = await exampleAgainst(server, { executable: './no-such-opencode' });
    const notInstalled = await runAgentv(['eval', 'evals', '--target', 'opencode'], missing, {
      SCRIPTED_KEY: 'k',
    });
    expect(notInstalled.code).toBe(2);
    expect(notInstalled.stderr).toContain(
      'opencode is not installed: "./no-such-opencode" was not found',
    );
    expect(notInstalled.stderr).toContain('npm i -g opencode-ai');

    // An old CLI is refused by the health check, before any case runs.
    const old = await exampleAgainst(server, { executable: './old-opencode' });
    await writeFile(path.join(old, 'old-opencode'), '#!/bin/sh\necho "0.3.1"\n', {
      mode: 0o755,
    });
    const tooOld = await runAgentv(['eval', 'evals', '--target', 'opencode'], old, {
      SCRIPTED_KEY: 'k',
    });
    expect(tooOld.code).toBe(2);
    expect(tooOld.stderr).toContain(
      'opencode 0.3.1 is older than 1.1.1, the oldest version AgentV runs',
    );
    expect(tooOld.stderr).toContain('npm i -g opencode-ai@latest');
  });

  it('validate checks the settings without starting the agent', async (context) => {
    if (!opencode) return context.skip();
    const server = await startChatCompletionsServer(solve);
    servers.push(server);
    const good = await runAgentv(
      ['validate', 'evals', '--target', 'opencode'],
      await exampleAgainst(server, { allowed_tools: ['shell', 'edit_file'] }),
      { SCRIPTED_KEY: 'k' },
    );
    expect(good.code, good.stderr + good.stdout).toBe(0);
    const bad = await exampleAgainst(server, { model: undefined, permission_mode: 'ask' });
    const run = await runAgentv(['validate', 'evals', '--target', 'opencode'], bad, {
      SCRIPTED_KEY: 'k',
    });
    expect(run.code).toBe(1);
    const output = run.stdout + run.stderr;
    expect(output).toContain('permission_mode');
    expect(output).toContain('must be one of full, workspace_write, read_only');
    expect(output).toContain('model');
    expect(output).toContain('is required with base_url');
    expect(server.requests).toEqual([]);
  });

  it('agentv init writes an opencode target that validates once uncommented', async (context) => {
    if (!opencode) return context.skip();
    scratch ??= await mkdtemp(path.join(tmpdir(), 'agentv-opencode-'));
    const root = await mkdtemp(path.join(scratch, 'init-'));
    await runAgentv(['init'], root);
    const targetsPath = path.join(root, '.agentv/targets.yaml');
    const targets = await readFile(targetsPath, 'utf8');
    const block = /^ {2}# - name: opencode\n(?: {2}# {3}.*\n)+/m.exec(targets)?.[0];
    expect(block).toContain('provider: opencode');
    await writeFile(targetsPath, targets.replace(block!, block!.replace(/^ {2}# /gm, '  ')));
    const env = {
      PATH: `${path.dirname(opencode)}${path.delimiter}${process.env.PATH}`,
      OPENAI_API_KEY: 'sk-x',
    };
    const validate = await runAgentv(['validate'], root, env);
    expect(validate.stdout + validate.stderr).toBe('3 files checked: no errors\n');
  });
});
