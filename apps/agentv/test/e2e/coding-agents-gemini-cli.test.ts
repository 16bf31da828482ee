import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureAgentCli } from '../../../../packages/provider-coding-agents/src/test-support/agent-cli.js';
import {
  type GeminiServer,
  type ScriptedTurn,
  startGeminiServer,
} from '../../../../packages/provider-coding-agents/src/test-support/gemini-server.js';
import {
  type OutsideTraffic,
  watchOutsideTraffic,
} from '../../../../packages/provider-coding-agents/src/test-support/outside-traffic.js';
import {
  CODING_TASKS,
  codingAgentScratch,
  evalExample as evalExampleOf,
  expectAgentMissingHere,
  processesWith,
  toolCalls,
} from '../support/coding-agents.js';
import { runAgentv } from '../support/project.js';

// The gemini-cli provider through the built CLI, running the real Gemini CLI (pinned, installed
// into the cache folder by `ensureAgentCli`) against a scripted Gemini API server on 127.0.0.1,
// on examples/coding-agents: three coding tasks graded by the repository's tests.

/** What a competent model does for each task of the example, found by words of its prompt. */
const SOLUTIONS: [string, ScriptedTurn[]][] = [
  [
    'src/slugify.js',
    [
      {
        text: 'Let me read it.',
        tools: [{ tool: 'read_file', input: { file_path: 'src/slugify.js' } }],
      },
      {
        tools: [
          {
            tool: 'replace',
            input: {
              file_path: 'src/slugify.js',
              instruction: 'join words with dashes',
              old_string: "'_')",
              new_string: "'-')",
            },
          },
        ],
      },
      {
        tools: [
          { tool: 'run_shell_command', input: { command: 'node --test test/slugify.test.js' } },
        ],
      },
      { text: 'Fixed slugify: words are now joined with dashes.' },
    ],
  ],
  [
    'wordCount',
    [
      { tools: [{ tool: 'read_file', input: { file_path: 'src/word-count.js' } }] },
      {
        tools: [
          {
            tool: 'replace',
            input: {
              file_path: 'src/word-count.js',
              instruction: 'implement wordCount',
              old_string:
                "export function wordCount(_text) {\n  throw new Error('not implemented');",
              new_string:
                'export function wordCount(text) {\n  return text.split(/\\s+/).filter((word) => word !== "").length;',
            },
          },
        ],
      },
      { text: 'Implemented wordCount.' },
    ],
  ],
  [
    'capitalize',
    [
      {
        tools: [
          {
            tool: 'write_file',
            input: {
              file_path: 'src/capitalize.js',
              content:
                'export function capitalize(text) {\n  return text.charAt(0).toUpperCase() + text.slice(1);\n}\n',
            },
          },
        ],
      },
      { text: 'Created src/capitalize.js.' },
    ],
  ],
];

const solve = (prompt: string): ScriptedTurn[] =>
  SOLUTIONS.find(([marker]) => prompt.includes(marker))?.[1] ?? [{ text: 'No task found.' }];
const lazy = (): ScriptedTurn[] => [
  { text: 'Done: all three tasks are complete and the tests pass.' },
];

const KEY = 'gemini-scripted-secret-1234';
let gemini: string | undefined;
const scratch = codingAgentScratch('gemini');
const servers: GeminiServer[] = [];

/** The proxy every call is given: what the agent asks of hosts other than the model's. */
let outside: OutsideTraffic;

beforeAll(async () => {
  outside = await watchOutsideTraffic();
  gemini = await ensureAgentCli('gemini-cli');
}, 600_000);

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  await outside?.close();
  await scratch.remove();
});

async function serve(script: Parameters<typeof startGeminiServer>[0]) {
  const server = await startGeminiServer(script);
  servers.push(server);
  return server;
}

/** A copy of the example with a targets file pointing a gemini-cli target at `server`. */
function exampleAgainst(server: GeminiServer, target: Record<string, unknown> = {}) {
  return scratch.exampleWith('gemini', {
    provider: 'gemini-cli',
    executable: gemini,
    base_url: server.origin,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${{ VAR }} is targets-file syntax
    api_key: '${{ SCRIPTED_KEY }}',
    model: 'gemini-2.5-flash',
    timeout_seconds: 120,
    env: outside.env,
    ...target,
  });
}

const evalExample = (dir: string, extra: string[] = [], key = KEY) =>
  evalExampleOf(dir, 'gemini', { SCRIPTED_KEY: key }, extra);

// Gemini CLI is Node: each run takes seconds on a busy 2-core machine.
describe('provider: gemini-cli, the real CLI against a scripted model', {
  timeout: 300_000,
}, () => {
  it('does the three coding tasks: tests pass, canonical tool names, tokens and cost, transcripts', async (context) => {
    if (!gemini) return context.skip();
    const server = await serve(solve);
    const dir = await exampleAgainst(server);
    const { code, stderr, byId, out } = await evalExample(dir, ['--dump-traces']);
    expect(stderr).not.toContain(KEY);
    expect(code, stderr).toBe(0);
    for (const id of CODING_TASKS) expect(byId[id], id).toMatchObject({ passed: true, score: 1 });
    expect(toolCalls(byId['fix-slugify'])).toEqual([
      'read_file/read_file',
      'edit_file/replace',
      'shell/run_shell_command',
    ]);
    expect(toolCalls(byId['implement-word-count'])).toEqual([
      'read_file/read_file',
      'edit_file/replace',
    ]);
    expect(toolCalls(byId['create-capitalize'])).toEqual(['write_file/write_file']);
    // The test run's output reached the trace.
    const shell = byId['fix-slugify'].trace.find(
      (event: { type: string; name: string }) =>
        event.type === 'tool_result' && event.name === 'shell',
    );
    expect(shell.output).toContain('pass 1');
    expect(shell.metadata.duration_ms).toBeGreaterThanOrEqual(0);
    // 120 input and 30 output tokens per scripted response, from result.stats; Gemini CLI reports
    // no cost, so gemini-2.5-flash's price from the table gives it.
    expect(byId['fix-slugify'].usage).toMatchObject({ input_tokens: 480, output_tokens: 120 });
    expect(byId['fix-slugify'].cost_usd).toBeCloseTo((480 * 0.3 + 120 * 2.5) / 1e6, 10);
    expect(byId['create-capitalize'].usage).toMatchObject({ input_tokens: 240, output_tokens: 60 });
    // The answer is the text after the last tool call, its delta pieces joined.
    expect(byId['fix-slugify'].candidate_answer).toBe(
      'Fixed slugify: words are now joined with dashes.',
    );
    // Every request came with the key, for the target's model, and nothing but model requests.
    expect(server.requests.every((request) => request.headers['x-goog-api-key'] === KEY)).toBe(
      true,
    );
    expect(new Set(server.requests.map((request) => request.url))).toEqual(
      new Set(['/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse']),
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
    expect(transcript.split('\n')[0]).toContain('"type":"init"');
    expect(transcript).toContain('"type":"tool_use"');
    const dump = JSON.parse(
      await readFile(path.join(dir, '.agentv/traces/fix-slugify_attempt-1.json'), 'utf8'),
    );
    expect(dump.transcript.at(-1)).toMatchObject({ type: 'result', status: 'success' });
  });

  it('fails all three tasks when the model claims success without doing anything', async (context) => {
    if (!gemini) return context.skip();
    const server = await serve(lazy);
    const { code, byId } = await evalExample(await exampleAgainst(server));
    expect(code).toBe(1);
    for (const id of CODING_TASKS) {
      expect(byId[id], id).toMatchObject({ passed: false });
      expect(byId[id].candidate_answer).toContain('tests pass');
      expect(byId[id].error).toBeUndefined();
    }
  });

  it('says which tools were refused when permission_mode does not offer them', async (context) => {
    if (!gemini) return context.skip();
    const server = await serve(solve);
    const dir = await exampleAgainst(server, { permission_mode: 'read_only' });
    const { byId, stderr } = await evalExample(dir);
    const slugify = byId['fix-slugify'];
    expect(slugify.passed).toBe(false);
    expect(
      slugify.trace
        .filter(
          (event: { type: string; metadata?: { permission_denied?: boolean } }) =>
            event.type === 'tool_result' && event.metadata?.permission_denied,
        )
        .map((event: { name: string; raw_name: string }) => `${event.name}/${event.raw_name}`),
    ).toEqual(['edit_file/replace', 'shell/run_shell_command']);
    expect(stderr).toMatch(
      /case "[a-z-]+": Gemini CLI refused \d tool calls? \([a-z_, ]+\): its permission_mode did not offer them/,
    );
  });

  it('stops a hung agent at timeout_seconds with nothing left running, its commands included', async (context) => {
    if (!gemini) return context.skip();
    // The agent starts a command that would run for 5 minutes and waits for it.
    const marker = `hang-${randomBytes(6).toString('hex')}`;
    let started = '';
    const server = await serve(() => [
      {
        tools: [
          {
            tool: 'run_shell_command',
            input: {
              command: `echo up >> ${started} && node -e "setTimeout(() => {}, 300000)" ${marker}`,
            },
          },
        ],
      },
      { hang: true },
    ]);
    const key = `gemini-hang-${randomBytes(6).toString('hex')}`;
    // Long enough for the agent to start and send its first request on a busy machine; the three
    // cases run at once.
    const dir = await exampleAgainst(server, { timeout_seconds: 20, max_retries: 0 });
    started = path.join(dir, 'commands-started.txt');
    const startedAt = Date.now();
    const { code, byId, stderr } = await evalExample(dir, ['--workers', '3'], key);
    expect(code, stderr).toBe(2);
    for (const id of CODING_TASKS) {
      expect(byId[id].error, id).toContain(
        'Gemini CLI did not finish within 20 s; it and every process it started were stopped',
      );
    }
    expect(Date.now() - startedAt).toBeLessThan(150_000);
    // Neither Gemini CLI (its key in its environment) nor the command it started is left.
    expect(await processesWith(key, 'environ')).toEqual([]);
    expect(await processesWith(marker)).toEqual([]);
    // Each case's command did start before the agent was stopped.
    expect((await readFile(started, 'utf8')).trim().split('\n')).toHaveLength(3);
  });

  it('names each failure: refused key, unknown model, no final answer, not installed, too old', async (context) => {
    if (!gemini) return context.skip();
    const server = await serve((prompt) =>
      prompt.includes('slugify')
        ? [{ status: 401, error: { type: 'UNAUTHENTICATED', message: 'API key not valid.' } }]
        : prompt.includes('wordCount')
          ? [
              {
                status: 404,
                error: {
                  type: 'NOT_FOUND',
                  message: 'models/gemini-nope is not found for API version v1beta',
                },
              },
            ]
          : [{ tools: [{ tool: 'run_shell_command', input: { command: 'true' } }] }, { text: '' }],
    );
    const dir = await exampleAgainst(server, { max_retries: 0, model: 'gemini-nope' });
    const { byId, stderr } = await evalExample(dir);
    expect(byId['fix-slugify'].error).toMatch(
      /Gemini CLI: the model API at http:\/\/127\.0\.0\.1:\d+ refused the credentials: 401 API key not valid\./,
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${{ VAR }} is targets-file syntax
    expect(byId['fix-slugify'].error).toContain('api_key: ${{ GEMINI_API_KEY }}');
    expect(byId['implement-word-count'].error).toMatch(
      /Gemini CLI: the model API at .* does not know the model "gemini-nope": .*gemini-nope is not found/,
    );
    expect(byId['create-capitalize'].error).toContain('Gemini CLI ended without a final answer');
    expect(stderr).not.toContain('SyntaxError');

    const missing = await exampleAgainst(server, { executable: './no-such-gemini' });
    const notInstalled = await runAgentv(
      ['eval', 'evals', '--target', 'gemini', '--out', 'out.jsonl', '--workspace-root', 'ws'],
      missing,
      { SCRIPTED_KEY: 'k' },
    );
    expect(notInstalled.code).toBe(2);
    expect(notInstalled.stderr).toContain(
      'Gemini CLI is not installed: "./no-such-gemini" was not found',
    );
    expect(notInstalled.stderr).toContain('npm i -g @google/gemini-cli');

    const old = await exampleAgainst(server, { executable: './old-gemini' });
    await writeFile(path.join(old, 'old-gemini'), '#!/bin/sh\necho "0.30.0"\n', { mode: 0o755 });
    const tooOld = await runAgentv(
      ['eval', 'evals', '--target', 'gemini', '--out', 'out.jsonl', '--workspace-root', 'ws'],
      old,
      { SCRIPTED_KEY: 'k' },
    );
    expect(tooOld.code).toBe(2);
    expect(tooOld.stderr).toContain(
      'Gemini CLI 0.30.0 is older than 0.61.0, the oldest version AgentV runs',
    );
    expect(tooOld.stderr).toContain('npm i -g @google/gemini-cli@latest');
  });

  it('validate checks the settings without starting the agent', async (context) => {
    if (!gemini) return context.skip();
    const server = await serve(solve);
    const good = await runAgentv(
      ['validate', 'evals', '--target', 'gemini'],
      await exampleAgainst(server),
      {
        SCRIPTED_KEY: 'k',
      },
    );
    expect(good.code, good.stderr + good.stdout).toBe(0);
    const bad = await exampleAgainst(server, {
      base_url: 'ftp://example',
      permission_mode: 'ask',
      denied_tools: 'shell',
    });
    const run = await runAgentv(['validate', 'evals', '--target', 'gemini'], bad, {
      SCRIPTED_KEY: 'k',
    });
    expect(run.code).toBe(1);
    const output = run.stdout + run.stderr;
    expect(output).toContain('must be an http:// or https:// URL');
    expect(output).toContain('must be one of full, workspace_write, read_only');
    expect(output).toContain('denied_tools');
    expect(server.requests).toEqual([]);
  });
});

describe('agentv init', () => {
  it('writes a gemini-cli target that validates once uncommented', async (context) => {
    if (!gemini) return context.skip();
    const root = await scratch.folder('init');
    await runAgentv(['init'], root);
    const targetsPath = path.join(root, '.agentv/targets.yaml');
    const targets = await readFile(targetsPath, 'utf8');
    const block = /^ {2}# - name: gemini\n(?: {2}# {3}.*\n)+/m.exec(targets)?.[0];
    expect(block).toContain('provider: gemini-cli');
    // Uncommented, with the installed CLI on PATH as a user's would be.
    await writeFile(targetsPath, targets.replace(block!, block!.replace(/^ {2}# /gm, '  ')));
    const env = {
      PATH: `${path.dirname(gemini)}${path.delimiter}${process.env.PATH}`,
      GEMINI_API_KEY: 'gemini-x',
    };
    const validate = await runAgentv(['validate'], root, env);
    expect(validate.stdout + validate.stderr).toBe('3 files checked: no errors\n');
    await expectAgentMissingHere(root, 'gemini', 'Gemini CLI', 'gemini', {
      PATH: path.dirname(process.execPath),
      GEMINI_API_KEY: 'gemini-x',
    });
  });
});
