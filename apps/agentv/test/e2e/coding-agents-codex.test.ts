import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureAgentCli } from '../../../../packages/provider-coding-agents/src/test-support/agent-cli.js';
import {
  type OutsideTraffic,
  watchOutsideTraffic,
} from '../../../../packages/provider-coding-agents/src/test-support/outside-traffic.js';
import {
  type ResponsesServer,
  type ScriptTurn,
  startResponsesServer,
} from '../../../../packages/provider-coding-agents/src/test-support/responses-server.js';
import { codexSolution } from '../support/codex-solution.js';
import {
  CODING_TASKS,
  codingAgentScratch,
  evalExample as evalExampleOf,
  expectAgentMissingHere,
  processesWith,
  toolCalls,
} from '../support/coding-agents.js';
import { runAgentv } from '../support/project.js';

// The codex provider through the built CLI, running the real Codex CLI (pinned, installed into
// the cache folder by `ensureAgentCli`) against a scripted OpenAI Responses server on 127.0.0.1,
// on examples/coding-agents: three coding tasks graded by the repository's tests.

const solve = codexSolution();
const lazy = (): ScriptTurn[] => [
  { answer: 'Done: all three tasks are complete and the tests pass.' },
];

let codex: string | undefined;
const scratch = codingAgentScratch('codex');
const servers: ResponsesServer[] = [];
/** The proxy every call is given: what Codex asks of hosts other than the model's. */
let outside: OutsideTraffic;

beforeAll(async () => {
  outside = await watchOutsideTraffic();
  codex = await ensureAgentCli('codex');
}, 600_000);

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  await outside?.close();
  await scratch.remove();
});

/** A copy of the example with a targets file pointing the codex target at `server`. */
function exampleAgainst(server: ResponsesServer, target: Record<string, unknown> = {}) {
  return scratch.exampleWith('codex', {
    provider: 'codex',
    executable: codex,
    base_url: server.baseUrl,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${{ VAR }} is targets-file syntax
    api_key: '${{ SCRIPTED_KEY }}',
    model: 'gpt-5',
    timeout_seconds: 120,
    env: outside.env,
    ...target,
  });
}

const evalExample = (dir: string, extra: string[] = []) =>
  evalExampleOf(dir, 'codex', { SCRIPTED_KEY: 'sk-scripted-secret-1234' }, extra);

// A real agent CLI per case: seconds each on a busy 2-core machine.
describe('provider: codex, the real CLI against a scripted model', { timeout: 300_000 }, () => {
  it('does the three coding tasks: tests pass, canonical tool names, tokens and cost, transcripts', async (context) => {
    if (!codex) return context.skip();
    const server = await startResponsesServer(solve);
    servers.push(server);
    const dir = await exampleAgainst(server);
    // AgentV's own temp folder: the agents' config homes are made (some ahead) and removed there.
    const tmp = path.join(dir, 'tmp');
    await mkdir(tmp);
    const { code, stderr, byId, out } = await evalExampleOf(
      dir,
      'codex',
      { SCRIPTED_KEY: 'sk-scripted-secret-1234', TMPDIR: tmp },
      ['--dump-traces'],
    );
    expect(stderr).not.toContain('sk-scripted-secret-1234');
    expect(code, stderr).toBe(0);
    expect((await readdir(tmp)).filter((name) => name.includes('codex-home'))).toEqual([]);
    for (const id of CODING_TASKS) {
      expect(byId[id], id).toMatchObject({ passed: true, score: 1 });
      // The scripted server reports 120 input and 30 output tokens per response; gpt-5's price
      // from the table gives the cost, since Codex reports none.
      expect(byId[id].usage.input_tokens).toBeGreaterThan(0);
      expect(byId[id].usage.output_tokens).toBeGreaterThan(0);
      expect(byId[id].cost_usd).toBeGreaterThan(0);
    }
    const names = (id: string) => toolCalls(byId[id]);
    expect(names('fix-slugify')).toEqual(['shell/command_execution', 'shell/command_execution']);
    expect(names('implement-word-count')).toEqual(['edit_file/file_change']);
    expect(names('create-capitalize')).toEqual(['write_file/file_change']);
    expect(byId['fix-slugify'].usage).toMatchObject({ input_tokens: 360, output_tokens: 90 });
    // Every call of the scripted server came with the key and asked for the target's model.
    expect(
      server.requests.every(
        (request) => request.headers.authorization === 'Bearer sk-scripted-secret-1234',
      ),
    ).toBe(true);
    expect(new Set(server.requests.map((request) => request.body.model))).toEqual(
      new Set(['gpt-5']),
    );
    // Nothing but the model: no plugin catalogue from github.com, no usage metrics.
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
    expect(transcript.split('\n')[0]).toContain('"thread.started"');
    expect(transcript).toContain('"turn.completed"');
    const dump = JSON.parse(
      await readFile(path.join(dir, '.agentv/traces/fix-slugify_attempt-1.json'), 'utf8'),
    );
    expect(dump.transcript.at(-1)).toMatchObject({ type: 'turn.completed' });
  });

  it('fails a case over max_tokens after the fact: Codex reports its usage only when its turn completes', async (context) => {
    if (!codex) return context.skip();
    // Four commands, then the answer: 5 responses of 120 + 30 tokens, 150 past max_tokens at
    // the second. `codex exec --json` says nothing of tokens until `turn.completed`, its last
    // event, so the agent cannot be stopped mid-run: it finishes and the case fails after it.
    const server = await startResponsesServer(() => [
      { shell: 'echo one' },
      { shell: 'echo two' },
      { shell: 'echo three' },
      { shell: 'echo four' },
      { answer: 'All four commands ran.' },
    ]);
    servers.push(server);
    const dir = await exampleAgainst(server, { max_retries: 0 });
    await writeFile(
      path.join(dir, 'budget.yaml'),
      `execution:
  target: codex
  evaluators:
    - { name: done, type: contains, value: "All four commands ran." }
evalcases:
  - id: long-task
    input_messages: [{ role: user, content: "Run the four commands." }]
    execution: { max_tokens: 300 }
`,
    );
    const out = path.join(dir, 'budget.jsonl');
    const run = await runAgentv(['eval', 'budget.yaml', '--out', out], dir, {
      SCRIPTED_KEY: 'sk-scripted-secret-1234',
    });
    expect(run.code, run.stderr).toBe(1);
    expect(server.requests.filter((request) => request.url.endsWith('/responses'))).toHaveLength(5);
    const [line] = (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text));
    expect(line).toMatchObject({
      passed: false,
      failure_class: 'budget',
      candidate_answer: 'All four commands ran.',
      usage: { input_tokens: 600, output_tokens: 150 },
    });
    expect(line.misses[0]).toBe('over budget: 750 tokens > max_tokens 300');
  });

  it('fails all three tasks when the model claims success without doing anything', async (context) => {
    if (!codex) return context.skip();
    const server = await startResponsesServer(lazy);
    servers.push(server);
    const { code, byId, out } = await evalExample(await exampleAgainst(server));
    expect(code).toBe(1);
    // Transcripts are saved without --dump-traces too.
    expect((await readdir(path.join(path.dirname(out), 'out.transcripts'))).sort()).toEqual(
      CODING_TASKS.map((id) => `${id}_attempt-1.jsonl`).sort(),
    );
    for (const id of CODING_TASKS) {
      expect(byId[id], id).toMatchObject({ passed: false });
      expect(byId[id].candidate_answer).toContain('tests pass');
      expect(byId[id].error).toBeUndefined();
    }
  });

  it('stops a hung agent at timeout_seconds with nothing left running', async (context) => {
    if (!codex) return context.skip();
    const server = await startResponsesServer(() => [{ hang: true }]);
    servers.push(server);
    // Long enough for the agent to start and send its first request on a busy machine; the three
    // cases run at once.
    const dir = await exampleAgainst(server, { timeout_seconds: 10, max_retries: 0 });
    const started = Date.now();
    const { code, byId, stderr } = await evalExample(dir, ['--workers', '3']);
    expect(code, stderr).toBe(2);
    expect(byId['fix-slugify'].error).toContain(
      'Codex did not finish within 10 s; it and every process it started were stopped',
    );
    // Three cases, each stopped near its limit rather than after Codex's own stream timeout (minutes).
    expect(Date.now() - started).toBeLessThan(90_000);
    // Neither Codex's node launcher nor its native binary (both under the install folder) is left.
    expect(await processesWith(path.dirname(path.dirname(path.dirname(codex))))).toEqual([]);
    expect(server.requests.length).toBeGreaterThan(0);
  });

  it('names each failure: not installed, refused key, unknown model, no final answer', async (context) => {
    if (!codex) return context.skip();
    const server = await startResponsesServer((prompt) =>
      prompt.includes('slugify')
        ? [{ status: 401, error: 'Incorrect API key provided: sk-sc***' }]
        : prompt.includes('wordCount')
          ? [
              {
                status: 404,
                error: 'The model `gpt-5` does not exist or you do not have access to it.',
              },
            ]
          : [{ shell: 'true' }, { silent: true }],
    );
    servers.push(server);
    const { byId, stderr } = await evalExample(await exampleAgainst(server, { max_retries: 0 }));
    expect(byId['fix-slugify'].error).toMatch(
      /Codex: the model API at http:\/\/127\.0\.0\.1:\d+\/v1 refused the credentials: .*401 Unauthorized/,
    );
    expect(byId['implement-word-count'].error).toMatch(
      /Codex: the model API at .* does not know the model "gpt-5": .*does not exist/,
    );
    expect(byId['create-capitalize'].error).toContain('Codex ended without a final answer');
    expect(stderr).not.toContain('SyntaxError');

    const missing = await exampleAgainst(server, { executable: './no-such-codex' });
    const notInstalled = await runAgentv(['eval', 'evals', '--out', 'out.jsonl'], missing, {
      SCRIPTED_KEY: 'k',
    });
    expect(notInstalled.code).toBe(2);
    expect(notInstalled.stderr).toContain(
      'Codex is not installed: "./no-such-codex" was not found',
    );
    expect(notInstalled.stderr).toContain('npm i -g @openai/codex');

    // An old CLI is refused by the health check, before any case runs.
    const old = await exampleAgainst(server, { executable: './old-codex' });
    await writeFile(path.join(old, 'old-codex'), '#!/bin/sh\necho "codex-cli 0.1.0"\n', {
      mode: 0o755,
    });
    const tooOld = await runAgentv(['eval', 'evals', '--out', 'out.jsonl'], old, {
      SCRIPTED_KEY: 'k',
    });
    expect(tooOld.code).toBe(2);
    expect(tooOld.stderr).toContain(
      'Codex 0.1.0 is older than 0.169.0, the oldest version AgentV runs',
    );
    expect(tooOld.stderr).toContain('npm i -g @openai/codex@latest');
  });

  it('validate checks the settings without starting the agent', async (context) => {
    if (!codex) return context.skip();
    const server = await startResponsesServer(solve);
    servers.push(server);
    const good = await runAgentv(['validate', 'evals'], await exampleAgainst(server), {
      SCRIPTED_KEY: 'k',
    });
    expect(good.code, good.stderr + good.stdout).toBe(0);
    const bad = await exampleAgainst(server, {
      base_url: 'ftp://example',
      permission_mode: 'ask',
      allowed_tools: ['shell'],
    });
    const run = await runAgentv(['validate', 'evals'], bad, { SCRIPTED_KEY: 'k' });
    expect(run.code).toBe(1);
    const output = run.stdout + run.stderr;
    expect(output).toContain('base_url');
    expect(output).toContain('must be an http:// or https:// URL');
    expect(output).toContain('permission_mode');
    expect(output).toContain('must be one of full, workspace_write, read_only');
    expect(output).toContain('allowed_tools');
    expect(output).toContain('is not used by Codex');
    expect(server.requests).toEqual([]);
  });

  it('agentv init writes a codex target that validates once uncommented', async (context) => {
    if (!codex) return context.skip();
    const root = await scratch.folder('init');
    await runAgentv(['init'], root);
    const targetsPath = path.join(root, '.agentv/targets.yaml');
    const targets = await readFile(targetsPath, 'utf8');
    const block = /^ {2}# - name: codex\n(?: {2}# {3}.*\n)+/m.exec(targets)?.[0];
    expect(block).toContain('provider: codex');
    // Uncommented, with the installed CLI on PATH as a user's would be.
    await writeFile(targetsPath, targets.replace(block!, block!.replace(/^ {2}# /gm, '  ')));
    const env = {
      PATH: `${path.dirname(codex)}${path.delimiter}${process.env.PATH}`,
      OPENAI_API_KEY: 'sk-x',
    };
    const validate = await runAgentv(['validate'], root, env);
    expect(validate.stdout + validate.stderr).toBe('3 files checked: no errors\n');
    await expectAgentMissingHere(root, 'codex', 'Codex', 'codex', {
      PATH: path.dirname(process.execPath),
      OPENAI_API_KEY: 'sk-x',
    });
  });
});
