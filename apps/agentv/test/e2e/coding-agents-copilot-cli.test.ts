import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
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
import {
  CODING_TASKS,
  codingAgentScratch,
  evalExample as evalExampleOf,
  processesWith,
  toolCalls,
} from '../support/coding-agents.js';
import { runAgentv } from '../support/project.js';

// The copilot-cli provider through the built CLI, running the real GitHub Copilot CLI (pinned,
// installed into the cache folder by `ensureAgentCli`) in its provider mode (BYOK, offline: no
// GitHub login) against a scripted OpenAI chat-completions server on 127.0.0.1, on
// examples/coding-agents: three coding tasks graded by the repository's tests.

/** What a competent model does for each task of the example, found by words of its prompt. */
const SOLUTIONS: [string, ChatScriptTurn[]][] = [
  [
    'src/slugify.js',
    [
      { tool: 'view', input: { path: 'src/slugify.js' } },
      { tool: 'edit', input: { path: 'src/slugify.js', old_str: "'_')", new_str: "'-')" } },
      { shell: 'node --test test/slugify.test.js' },
      { answer: 'Fixed slugify: words are now joined with dashes.' },
    ],
  ],
  [
    'wordCount',
    [
      {
        tool: 'edit',
        input: {
          path: 'src/word-count.js',
          old_str: "export function wordCount(_text) {\n  throw new Error('not implemented');",
          new_str:
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
        tool: 'create',
        input: {
          path: 'src/capitalize.js',
          file_text:
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

const KEY = 'copilot-scripted-secret-1234';
let copilot: string | undefined;
const scratch = codingAgentScratch('copilot');
const servers: ChatCompletionsServer[] = [];

/** The proxy every call is given: what the agent asks of hosts other than the model's. */
let outside: OutsideTraffic;

beforeAll(async () => {
  outside = await watchOutsideTraffic();
  copilot = await ensureAgentCli('copilot-cli');
}, 600_000);

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  await outside?.close();
  await scratch.remove();
});

async function serve(script: (prompt: string) => ChatScriptTurn[]) {
  const server = await startChatCompletionsServer(script);
  servers.push(server);
  return server;
}

/** A copy of the example with a targets file pointing a copilot-cli target at `server`. */
function exampleAgainst(server: ChatCompletionsServer, target: Record<string, unknown> = {}) {
  return scratch.exampleWith('copilot', {
    provider: 'copilot-cli',
    executable: copilot,
    base_url: server.baseUrl,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${{ VAR }} is targets-file syntax
    api_key: '${{ SCRIPTED_KEY }}',
    model: 'gpt-4.1',
    timeout_seconds: 120,
    env: outside.env,
    ...target,
  });
}

const evalExample = (dir: string, extra: string[] = [], key = KEY) =>
  evalExampleOf(dir, 'copilot', { SCRIPTED_KEY: key }, extra);

describe('provider: copilot-cli, the real CLI against a scripted model', {
  timeout: 300_000,
}, () => {
  it('does the three coding tasks: tests pass, canonical tool names, tokens and cost, transcripts', async (context) => {
    if (!copilot) return context.skip();
    const server = await serve(solve);
    const dir = await exampleAgainst(server);
    const { code, stderr, byId, out } = await evalExample(dir, ['--dump-traces']);
    expect(stderr).not.toContain(KEY);
    expect(code, stderr).toBe(0);
    for (const id of CODING_TASKS) expect(byId[id], id).toMatchObject({ passed: true, score: 1 });
    expect(toolCalls(byId['fix-slugify'])).toEqual([
      'read_file/view',
      'edit_file/edit',
      'shell/bash',
    ]);
    expect(toolCalls(byId['implement-word-count'])).toEqual(['edit_file/edit']);
    expect(toolCalls(byId['create-capitalize'])).toEqual(['write_file/create']);
    // The test run's output and exit code reached the trace, timed by Copilot.
    const shell = byId['fix-slugify'].trace.find(
      (event: { type: string; name: string }) =>
        event.type === 'tool_result' && event.name === 'shell',
    );
    expect(shell.output).toContain('pass 1');
    expect(shell.metadata).toMatchObject({ status: 'completed', exit_code: 0 });
    expect(shell.metadata.duration_ms).toBeGreaterThanOrEqual(0);
    // 120 input and 30 output tokens per scripted response, from Copilot's usage file; Copilot
    // reports no money, so gpt-4.1's price from the table gives the cost.
    expect(byId['fix-slugify'].usage).toMatchObject({ input_tokens: 480, output_tokens: 120 });
    expect(byId['fix-slugify'].cost_usd).toBeCloseTo((480 * 2 + 120 * 8) / 1e6, 10);
    expect(byId['create-capitalize'].usage).toMatchObject({ input_tokens: 240, output_tokens: 60 });
    expect(byId['fix-slugify'].candidate_answer).toBe(
      'Fixed slugify: words are now joined with dashes.',
    );
    // Every request came with the key, for the target's model, and nothing but model requests.
    expect(
      server.requests.every((request) => request.headers.authorization === `Bearer ${KEY}`),
    ).toBe(true);
    expect(new Set(server.requests.map((request) => request.body.model))).toEqual(
      new Set(['gpt-4.1']),
    );
    expect(new Set(server.requests.map((request) => request.url))).toEqual(
      new Set(['/v1/chat/completions']),
    );
    // Nothing but the model: no request to any other host (update checks, telemetry).
    expect(outside.hosts).toEqual([]);

    // The raw event stream of each case and attempt, beside the results and in the trace dump.
    const transcripts = path.join(path.dirname(out), 'out.transcripts');
    expect((await readdir(transcripts)).sort()).toEqual(
      CODING_TASKS.map((id) => `${id}_attempt-1.jsonl`).sort(),
    );
    const transcript = await readFile(
      path.join(transcripts, 'fix-slugify_attempt-1.jsonl'),
      'utf8',
    );
    expect(transcript).toContain('"type":"tool.execution_start"');
    expect(transcript).not.toContain(KEY);
    const dump = JSON.parse(
      await readFile(path.join(dir, '.agentv/traces/fix-slugify_attempt-1.json'), 'utf8'),
    );
    expect(dump.transcript.at(-1)).toMatchObject({ type: 'result', exitCode: 0 });
  });

  it('fails all three tasks when the model claims success without doing anything', async (context) => {
    if (!copilot) return context.skip();
    const server = await serve(lazy);
    const { code, byId } = await evalExample(await exampleAgainst(server));
    expect(code).toBe(1);
    for (const id of CODING_TASKS) {
      expect(byId[id], id).toMatchObject({ passed: false });
      expect(byId[id].candidate_answer).toContain('tests pass');
      expect(byId[id].error).toBeUndefined();
    }
  });

  it('read_only offers no shell and no file changes: the tasks fail, the edits are refused', async (context) => {
    if (!copilot) return context.skip();
    const server = await serve(solve);
    const dir = await exampleAgainst(server, { permission_mode: 'read_only' });
    const { byId } = await evalExample(dir, ['--eval-id', 'fix-slugify']);
    const line = byId['fix-slugify'];
    expect(line).toMatchObject({ passed: false });
    expect(line.error).toBeUndefined();
    const offered = (
      (server.conversation()[0]?.body.tools ?? []) as { function: { name: string } }[]
    ).map((tool) => tool.function.name);
    expect(offered).toContain('view');
    for (const name of ['bash', 'edit', 'create']) expect(offered).not.toContain(name);
    const statuses = line.trace
      .filter((event: { type: string }) => event.type === 'tool_result')
      .map(
        (event: { name: string; metadata: { status: string } }) =>
          `${event.name}:${event.metadata.status}`,
      );
    expect(statuses).toEqual(['read_file:completed', 'edit_file:error', 'shell:error']);
  });

  it('stops a hung agent at timeout_seconds with nothing left running, its commands included', async (context) => {
    if (!copilot) return context.skip();
    // The agent starts a command that would run for 5 minutes, then its model never answers.
    const marker = `hang-${randomBytes(6).toString('hex')}`;
    let started = '';
    const server = await serve(() => [
      {
        tool: 'bash',
        input: {
          command: `echo up >> ${started} && node -e "setTimeout(() => {}, 300000)" ${marker}`,
          description: 'Waits',
          mode: 'async',
        },
      },
      { hang: true },
    ]);
    const key = `copilot-hang-${randomBytes(6).toString('hex')}`;
    // Long enough for the agent to start and send its first request on a busy machine; the three
    // cases run at once.
    const dir = await exampleAgainst(server, { timeout_seconds: 20, max_retries: 0 });
    started = path.join(dir, 'commands-started.txt');
    const startedAt = Date.now();
    const { code, byId, stderr } = await evalExample(dir, ['--workers', '3'], key);
    expect(code, stderr).toBe(2);
    for (const id of CODING_TASKS) {
      expect(byId[id].error, id).toContain(
        'Copilot CLI did not finish within 20 s; it and every process it started were stopped',
      );
    }
    expect(Date.now() - startedAt).toBeLessThan(200_000);
    // Neither Copilot CLI (the key in its environment) nor the command it started is left.
    expect(await processesWith(key, 'environ')).toEqual([]);
    expect(await processesWith(marker)).toEqual([]);
    // Each case's command did start before the agent was stopped.
    expect((await readFile(started, 'utf8')).trim().split('\n')).toHaveLength(3);
  });

  it('names each failure: refused key, unknown model, no final answer, not installed, too old', async (context) => {
    if (!copilot) return context.skip();
    const server = await serve((prompt) =>
      prompt.includes('slugify')
        ? [{ status: 401, error: 'Incorrect API key provided: copil***' }]
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
    const dir = await exampleAgainst(server, { max_retries: 0 });
    const { byId, stderr } = await evalExample(dir);
    expect(byId['fix-slugify'].error).toMatch(
      /Copilot CLI: the model API at http:\/\/127\.0\.0\.1:\d+\/v1 refused the credentials: Authentication failed with provider at .* \(HTTP 401\)/,
    );
    expect(byId['implement-word-count'].error).toMatch(
      /Copilot CLI: the model API at .* does not know the model "gpt-4\.1": Model 'gpt-4\.1' not found on provider/,
    );
    expect(byId['create-capitalize'].error).toContain('Copilot CLI ended without a final answer');
    expect(stderr).not.toContain('SyntaxError');

    const missing = await exampleAgainst(server, { executable: './no-such-copilot' });
    const notInstalled = await runAgentv(
      ['eval', 'evals', '--target', 'copilot', '--out', 'out.jsonl', '--workspace-root', 'ws'],
      missing,
      { SCRIPTED_KEY: 'k' },
    );
    expect(notInstalled.code).toBe(2);
    expect(notInstalled.stderr).toContain(
      'Copilot CLI is not installed: "./no-such-copilot" was not found',
    );
    expect(notInstalled.stderr).toContain('npm i -g @github/copilot');

    const old = await exampleAgainst(server, { executable: './old-copilot' });
    await writeFile(
      path.join(old, 'old-copilot'),
      '#!/bin/sh\necho "GitHub Copilot CLI 0.0.400."\n',
      { mode: 0o755 },
    );
    const tooOld = await runAgentv(
      ['eval', 'evals', '--target', 'copilot', '--out', 'out.jsonl', '--workspace-root', 'ws'],
      old,
      { SCRIPTED_KEY: 'k' },
    );
    expect(tooOld.code).toBe(2);
    expect(tooOld.stderr).toContain(
      'Copilot CLI 0.0.400 is older than 1.0.81, the oldest version AgentV runs',
    );
    expect(tooOld.stderr).toContain('npm i -g @github/copilot@latest');
  });

  it('validate checks the settings without starting the agent; provider: copilot is the same', async (context) => {
    if (!copilot) return context.skip();
    const server = await serve(solve);
    const good = await runAgentv(
      ['validate', 'evals', '--target', 'copilot'],
      await exampleAgainst(server, { provider: 'copilot', allowed_tools: ['shell', 'edit_file'] }),
      { SCRIPTED_KEY: 'k' },
    );
    expect(good.code, good.stderr + good.stdout).toBe(0);
    const bad = await exampleAgainst(server, { model: undefined, permission_mode: 'ask' });
    const run = await runAgentv(['validate', 'evals', '--target', 'copilot'], bad, {
      SCRIPTED_KEY: 'k',
    });
    expect(run.code).toBe(1);
    const output = run.stdout + run.stderr;
    expect(output).toContain('must be one of full, workspace_write, read_only');
    expect(output).toContain('is required with base_url');
    expect(server.requests).toEqual([]);
  });
});

describe('agentv init', () => {
  it('writes a copilot-cli target that validates once uncommented', async (context) => {
    if (!copilot) return context.skip();
    const root = await scratch.folder('init');
    await runAgentv(['init'], root);
    const targetsPath = path.join(root, '.agentv/targets.yaml');
    const targets = await readFile(targetsPath, 'utf8');
    const block = /^ {2}# - name: copilot\n(?: {2}# {3}.*\n)+/m.exec(targets)?.[0];
    expect(block).toContain('provider: copilot-cli');
    // Uncommented, with the installed CLI on PATH as a user's would be.
    await writeFile(targetsPath, targets.replace(block!, block!.replace(/^ {2}# /gm, '  ')));
    const env = {
      PATH: `${path.dirname(copilot)}${path.delimiter}${process.env.PATH}`,
      GH_TOKEN: 'github_pat_x',
    };
    const validate = await runAgentv(['validate'], root, env);
    expect(validate.stdout + validate.stderr).toBe('3 files checked: no errors\n');
  });
});
