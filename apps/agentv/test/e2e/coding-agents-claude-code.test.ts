import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureAgentCli } from '../../../../packages/provider-coding-agents/src/test-support/agent-cli.js';
import {
  type AnthropicServer,
  type ScriptedTurn,
  startAnthropicServer,
} from '../../../../packages/provider-coding-agents/src/test-support/anthropic-server.js';
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

// The claude-code provider through the built CLI, running the real Claude Code CLI (pinned,
// installed into the cache folder by `ensureAgentCli`) against a scripted Anthropic Messages
// server on 127.0.0.1, on examples/coding-agents: three coding tasks graded by the repository's tests.

/** What a competent model does for each task of the example, found by words of its prompt. */
const SOLUTIONS: [string, ScriptedTurn[]][] = [
  [
    'src/slugify.js',
    [
      { tools: [{ tool: 'Read', input: { file_path: 'src/slugify.js' } }] },
      {
        tools: [
          {
            tool: 'Edit',
            input: { file_path: 'src/slugify.js', old_string: "'_')", new_string: "'-')" },
          },
        ],
      },
      { tools: [{ tool: 'Bash', input: { command: 'node --test test/slugify.test.js' } }] },
      { text: 'Fixed slugify: words are now joined with dashes.' },
    ],
  ],
  [
    'wordCount',
    [
      { tools: [{ tool: 'Read', input: { file_path: 'src/word-count.js' } }] },
      {
        tools: [
          {
            tool: 'Edit',
            input: {
              file_path: 'src/word-count.js',
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
            tool: 'Write',
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

let claude: string | undefined;
const scratch = codingAgentScratch('claude');
const servers: AnthropicServer[] = [];

/** The proxy every call is given: what the agent asks of hosts other than the model's. */
let outside: OutsideTraffic;

beforeAll(async () => {
  outside = await watchOutsideTraffic();
  claude = await ensureAgentCli('claude-code');
}, 600_000);

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  await outside?.close();
  await scratch.remove();
});

async function serve(script: Parameters<typeof startAnthropicServer>[0]) {
  const server = await startAnthropicServer(script);
  servers.push(server);
  return server;
}

/** A copy of the example with a targets file pointing a claude-code target at `server`. */
function exampleAgainst(server: AnthropicServer, target: Record<string, unknown> = {}) {
  return scratch.exampleWith('claude', {
    provider: 'claude-code',
    executable: claude,
    base_url: server.origin,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${{ VAR }} is targets-file syntax
    api_key: '${{ SCRIPTED_KEY }}',
    model: 'claude-sonnet-4-5',
    timeout_seconds: 120,
    env: outside.env,
    ...target,
  });
}

const evalExample = (dir: string, extra: string[] = [], key = 'sk-ant-scripted-secret-1234') =>
  evalExampleOf(dir, 'claude', { SCRIPTED_KEY: key }, extra);

// A real agent CLI per case: seconds each on a busy 2-core machine.
describe('provider: claude-code, the real CLI against a scripted model', {
  timeout: 300_000,
}, () => {
  it('does the three coding tasks: tests pass, canonical tool names, tokens and cost, transcripts', async (context) => {
    if (!claude) return context.skip();
    const server = await serve(solve);
    const dir = await exampleAgainst(server);
    const { code, stderr, byId, out } = await evalExample(dir, ['--dump-traces']);
    expect(stderr).not.toContain('sk-ant-scripted-secret-1234');
    expect(code, stderr).toBe(0);
    for (const id of CODING_TASKS) expect(byId[id], id).toMatchObject({ passed: true, score: 1 });
    expect(toolCalls(byId['fix-slugify'])).toEqual([
      'read_file/Read',
      'edit_file/Edit',
      'shell/Bash',
    ]);
    expect(toolCalls(byId['implement-word-count'])).toEqual(['read_file/Read', 'edit_file/Edit']);
    expect(toolCalls(byId['create-capitalize'])).toEqual(['write_file/Write']);
    // The test run's output reached the trace, from Claude Code's tool_use_result.
    const shell = byId['fix-slugify'].trace.find(
      (event: { type: string; name: string }) =>
        event.type === 'tool_result' && event.name === 'shell',
    );
    expect(shell.metadata.stdout).toContain('pass 1');
    // The scripted server reports 120 input and 30 output tokens per response: the result event's
    // totals, not the per-message snapshots. Claude Code prices claude-sonnet-4-5 itself.
    expect(byId['fix-slugify'].usage).toMatchObject({ input_tokens: 480, output_tokens: 120 });
    expect(byId['fix-slugify'].cost_usd).toBeCloseTo(0.00324, 8);
    expect(byId['create-capitalize'].usage).toMatchObject({ input_tokens: 240, output_tokens: 60 });
    expect(byId['fix-slugify'].candidate_answer).toBe(
      'Fixed slugify: words are now joined with dashes.',
    );
    // Every request came with the key, for the target's model, and nothing but model requests.
    expect(
      server.requests.every(
        (request) => request.headers['x-api-key'] === 'sk-ant-scripted-secret-1234',
      ),
    ).toBe(true);
    expect(new Set(server.requests.map((request) => request.url))).toEqual(
      new Set(['/v1/messages?beta=true']),
    );
    expect(new Set(server.requests.map((request) => request.body.model))).toEqual(
      new Set(['claude-sonnet-4-5']),
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
    expect(transcript.split('\n')[0]).toContain('"subtype":"init"');
    expect(transcript).toContain('"type":"result"');
    const dump = JSON.parse(
      await readFile(path.join(dir, '.agentv/traces/fix-slugify_attempt-1.json'), 'utf8'),
    );
    expect(dump.transcript.at(-1)).toMatchObject({ type: 'result', is_error: false });
  });

  it('fails all three tasks when the model claims success without doing anything', async (context) => {
    if (!claude) return context.skip();
    const server = await serve(lazy);
    const { code, byId } = await evalExample(await exampleAgainst(server));
    expect(code).toBe(1);
    for (const id of CODING_TASKS) {
      expect(byId[id], id).toMatchObject({ passed: false });
      expect(byId[id].candidate_answer).toContain('tests pass');
      expect(byId[id].error).toBeUndefined();
    }
  });

  it('says which tools were denied when permission_mode does not cover them', async (context) => {
    if (!claude) return context.skip();
    const server = await serve(solve);
    const dir = await exampleAgainst(server, { permission_mode: 'read_only' });
    const { byId, stderr } = await evalExample(dir);
    const slugify = byId['fix-slugify'];
    expect(slugify.passed).toBe(false);
    expect(
      slugify.trace
        .filter((event: { type: string }) => event.type === 'error')
        .map((event: { name: string; raw_name: string }) => `${event.name}/${event.raw_name}`),
    ).toEqual(['edit_file/Edit', 'shell/Bash']);
    // The run shows the first warning of a target: whichever case replied first.
    expect(stderr).toMatch(
      /case "[a-z-]+": Claude Code was denied \d tool calls? \([A-Za-z, ]+\): its permission_mode did not cover them; set permission_mode: full, or list the tools in allowed_tools/,
    );
  });

  it('stops a hung agent at timeout_seconds with nothing left running, its commands included', async (context) => {
    if (!claude) return context.skip();
    // The agent starts a command that would run for 5 minutes and waits for it; Claude Code runs
    // its commands in process groups of their own, which AgentV stops too.
    let started = '';
    const server = await serve(() => [
      {
        tools: [
          {
            tool: 'Bash',
            input: { command: `echo up >> ${started} && node -e "setTimeout(() => {}, 300000)"` },
          },
        ],
      },
      { hang: true },
    ]);
    const key = `sk-ant-hang-${randomBytes(6).toString('hex')}`;
    // Long enough for the agent to start and send its first request on a busy machine; the three
    // cases run at once.
    const dir = await exampleAgainst(server, { timeout_seconds: 20, max_retries: 0 });
    started = path.join(dir, 'commands-started.txt');
    const startedAt = Date.now();
    const { code, byId, stderr } = await evalExample(dir, ['--workers', '3'], key);
    expect(code, stderr).toBe(2);
    for (const id of CODING_TASKS) {
      expect(byId[id].error, id).toContain(
        'Claude Code did not finish within 20 s; it and every process it started were stopped',
      );
    }
    // Three cases, each stopped near its limit rather than after Claude Code's own request timeout.
    expect(Date.now() - startedAt).toBeLessThan(120_000);
    expect(await processesWith(key, 'environ')).toEqual([]);
    expect(server.requests.length).toBeGreaterThan(0);
    // Each case's command did start before the agent was stopped.
    expect((await readFile(started, 'utf8')).trim().split('\n')).toHaveLength(3);
  });

  it('names each failure: refused key, unknown model, no final answer, not installed, too old', async (context) => {
    if (!claude) return context.skip();
    const server = await serve((prompt) =>
      prompt.includes('slugify')
        ? [{ status: 401, error: { type: 'authentication_error', message: 'invalid x-api-key' } }]
        : prompt.includes('wordCount')
          ? [{ status: 404, error: { type: 'not_found_error', message: 'model: claude-nope' } }]
          : [{ tools: [{ tool: 'Bash', input: { command: 'true' } }] }, { text: '' }],
    );
    const dir = await exampleAgainst(server, { max_retries: 0, model: 'claude-nope' });
    const { byId, stderr } = await evalExample(dir);
    expect(byId['fix-slugify'].error).toMatch(
      /Claude Code: the model API at http:\/\/127\.0\.0\.1:\d+ refused the credentials: Invalid API key/,
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${{ VAR }} is targets-file syntax
    expect(byId['fix-slugify'].error).toContain('api_key: ${{ ANTHROPIC_API_KEY }}');
    expect(byId['implement-word-count'].error).toMatch(
      /Claude Code: the model API at .* does not know the model "claude-nope": .*claude-nope/,
    );
    expect(byId['create-capitalize'].error).toContain('Claude Code ended without a final answer');
    expect(stderr).not.toContain('SyntaxError');

    const missing = await exampleAgainst(server, { executable: './no-such-claude' });
    const notInstalled = await runAgentv(
      ['eval', 'evals', '--target', 'claude', '--out', 'out.jsonl', '--workspace-root', 'ws'],
      missing,
      { SCRIPTED_KEY: 'k' },
    );
    expect(notInstalled.code).toBe(2);
    expect(notInstalled.stderr).toContain(
      'Claude Code is not installed: "./no-such-claude" was not found',
    );
    expect(notInstalled.stderr).toContain('npm i -g @anthropic-ai/claude-code');

    const old = await exampleAgainst(server, { executable: './old-claude' });
    await writeFile(path.join(old, 'old-claude'), '#!/bin/sh\necho "2.0.5 (Claude Code)"\n', {
      mode: 0o755,
    });
    const tooOld = await runAgentv(
      ['eval', 'evals', '--target', 'claude', '--out', 'out.jsonl', '--workspace-root', 'ws'],
      old,
      {
        SCRIPTED_KEY: 'k',
      },
    );
    expect(tooOld.stdout + tooOld.stderr).toContain(
      'Claude Code 2.0.5 is older than 2.1.0, the oldest version AgentV runs',
    );
  });

  it('stops Claude Code mid-run once its per-message usage crosses max_tokens', async (context) => {
    if (!claude) return context.skip();
    // Six steps of a command taking 3 s, then an answer. Each message streams 120 prompt tokens
    // and 1 output token when it starts: 121, 242, 363 > 300 at the third message, whose
    // command is still running when the agent is stopped.
    const steps: ScriptedTurn[] = [1, 2, 3, 4, 5, 6].map((n) => ({
      tools: [{ tool: 'Bash', input: { command: `sleep 3 && echo step ${n}` } }],
    }));
    const server = await serve([...steps, { text: 'All six steps ran.' }]);
    const dir = await exampleAgainst(server, { max_retries: 0 });
    await writeFile(
      path.join(dir, 'budget.yaml'),
      `execution:
  target: claude
  evaluators:
    - { name: done, type: contains, value: "All six steps ran." }
evalcases:
  - id: long-task
    input_messages: [{ role: user, content: "Run the six steps." }]
    execution: { max_tokens: 300 }
`,
    );
    const out = path.join(dir, 'budget.jsonl');
    const run = await runAgentv(['eval', 'budget.yaml', '--out', out, '--include-trace'], dir, {
      SCRIPTED_KEY: 'sk-ant-scripted-secret-1234',
    });
    expect(run.code, run.stderr).toBe(1);
    // The third model request was the last: the later ones were never made.
    expect(server.conversation()).toHaveLength(3);
    const [line] = (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text));
    expect(line).toMatchObject({ passed: false, failure_class: 'budget' });
    expect(line.error).toBeUndefined();
    expect(line.misses[0]).toBe('over budget: 363 tokens > max_tokens 300 (the agent was stopped)');
    // What it had spent and done when it was stopped stays on the result.
    expect(line.usage).toMatchObject({ input_tokens: 360, output_tokens: 3 });
    expect(line.cost_usd).toBeGreaterThan(0);
    expect(toolCalls(line)).toEqual(['shell/Bash', 'shell/Bash', 'shell/Bash']);
    expect(run.stdout).toContain('Failures by class: budget 1');
  });

  it('accepts upstream’s provider names claude and claude-cli', async (context) => {
    if (!claude) return context.skip();
    const server = await serve(solve);
    for (const provider of ['claude', 'claude-cli']) {
      const dir = await exampleAgainst(server, { provider });
      const run = await runAgentv(['validate', 'evals', '--target', 'claude'], dir, {
        SCRIPTED_KEY: 'k',
      });
      expect(run.code, run.stdout + run.stderr).toBe(0);
    }
    expect(server.requests).toEqual([]);
  });
});

describe('agentv init', () => {
  it('writes a claude-code target that validates once uncommented', async (context) => {
    if (!claude) return context.skip();
    const root = await scratch.folder('init');
    await runAgentv(['init'], root);
    const targetsPath = path.join(root, '.agentv/targets.yaml');
    const targets = await readFile(targetsPath, 'utf8');
    const block = /^ {2}# - name: claude\n(?: {2}# {3}.*\n)+/m.exec(targets)?.[0];
    expect(block).toContain('provider: claude-code');
    // Uncommented, with the installed CLI on PATH as a user's would be.
    await writeFile(targetsPath, targets.replace(block!, block!.replace(/^ {2}# /gm, '  ')));
    const env = {
      PATH: `${path.dirname(claude)}${path.delimiter}${process.env.PATH}`,
      ANTHROPIC_API_KEY: 'sk-ant-x',
    };
    const validate = await runAgentv(['validate'], root, env);
    expect(validate.stdout + validate.stderr).toBe('3 files checked: no errors\n');
    await expectAgentMissingHere(root, 'claude', 'Claude Code', 'claude', {
      PATH: path.dirname(process.execPath),
      ANTHROPIC_API_KEY: 'sk-ant-x',
    });
  });
});
