import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAgentCli } from '../../../../packages/provider-coding-agents/src/test-support/agent-cli.js';
import { startAnthropicServer } from '../../../../packages/provider-coding-agents/src/test-support/anthropic-server.js';
import { startResponsesServer } from '../../../../packages/provider-coding-agents/src/test-support/responses-server.js';
import { createProject, parseJsonl, runAgentv } from '../support/project.js';
import { claudeSession, codexSession } from '../support/recorded-sessions.js';

// Sessions a user ran by hand, graded afterwards: the real Codex and Claude Code CLIs (pinned,
// installed into the cache folder by `ensureAgentCli`) each run once in a home folder of their
// own against a scripted model server on 127.0.0.1; their session files are copied into a
// project whose cases point at them with `trace: { source, path }`; `agentv grade` grades them
// with tool_trajectory, and `agentv eval` answers them from the files without calling its target.

let codex: string | undefined;
let claude: string | undefined;
let scratch: string;

beforeAll(async () => {
  [codex, claude] = await Promise.all([ensureAgentCli('codex'), ensureAgentCli('claude-code')]);
  scratch = await mkdtemp(path.join(tmpdir(), 'agentv-sessions-'));
}, 600_000);

afterAll(() => rm(scratch, { recursive: true, force: true }));

const EVAL = `description: sessions run by hand
evalcases:
  - id: codex-notes
    trace: { source: codex-session, path: sessions/rollout.jsonl }
    evaluators:
      - name: read-with-shell
        type: tool_trajectory
        mode: exact
        expected: [{ tool: shell, input_pattern: { command: "cat notes.txt" } }]
      - { name: answer, type: contains, value: hello }
  - id: claude-notes
    trace: { source: claude-session, path: sessions/claude.jsonl }
    evaluators:
      - name: read-the-file
        type: tool_trajectory
        mode: exact
        expected: [{ tool: read_file }]
      - { name: answer, type: contains, value: hello }
`;

describe('recorded sessions as traces', { timeout: 300_000 }, () => {
  it('grades a Codex and a Claude Code session run by hand, with agentv grade and agentv eval', async (context) => {
    if (!codex || !claude) return context.skip();
    const work = path.join(scratch, 'work');
    await mkdir(work);
    await writeFile(path.join(work, 'notes.txt'), 'hello\n');
    const prompt = 'What do the notes say?';
    const responses = await startResponsesServer(() => [
      { shell: 'cat notes.txt' },
      { answer: 'The notes say hello.' },
    ]);
    const codexFile = await codexSession({
      codex,
      baseUrl: responses.baseUrl,
      home: path.join(scratch, 'codex-home'),
      workdir: work,
      prompt,
    }).finally(() => responses.close());
    const anthropic = await startAnthropicServer([
      { tools: [{ tool: 'Read', input: { file_path: path.join(work, 'notes.txt') } }] },
      { text: 'The notes say hello.' },
    ]);
    const claudeFile = await claudeSession({
      claude,
      baseUrl: anthropic.origin,
      home: path.join(scratch, 'claude-home'),
      workdir: work,
      prompt,
    }).finally(() => anthropic.close());

    const project = await createProject({
      'evals/sessions.yaml': EVAL,
      // A target that fails if it is ever called: a recorded case never calls it.
      '.agentv/targets.yaml':
        'targets:\n  - name: default\n    provider: cli\n    command_template: "false"\n',
    });
    try {
      await mkdir(path.join(project.dir, 'evals/sessions'));
      await cp(codexFile, path.join(project.dir, 'evals/sessions/rollout.jsonl'));
      await cp(claudeFile, path.join(project.dir, 'evals/sessions/claude.jsonl'));

      const graded = await runAgentv(
        ['grade', 'evals/sessions.yaml', '--out', 'graded.jsonl'],
        project.dir,
      );
      expect(graded.code, graded.stderr + graded.stdout).toBe(0);
      expect(graded.stdout).toContain('Graded 2 recorded case(s)');
      const lines = parseJsonl(await readFile(path.join(project.dir, 'graded.jsonl'), 'utf8'));
      const byId = Object.fromEntries(lines.map((line) => [line.eval_id, line]));
      expect(byId['codex-notes']).toMatchObject({ passed: true, target: 'codex-session' });
      expect(byId['claude-notes']).toMatchObject({ passed: true, target: 'claude-session' });
      expect(byId['codex-notes'].candidate_answer).toBe('The notes say hello.');
      // Tokens from the sessions' usage lines: two scripted responses of 120 + 30 each.
      expect(byId['codex-notes'].usage).toMatchObject({ input_tokens: 240, output_tokens: 60 });
      expect(byId['claude-notes'].usage).toMatchObject({ input_tokens: 240, output_tokens: 60 });
      // Events keep the sessions' own times.
      const codexCall = byId['codex-notes'].trace.find(
        (e: { type: string }) => e.type === 'tool_call',
      );
      expect(Date.parse(codexCall.timestamp)).toBeLessThan(Date.now() - 100);

      const evaluated = await runAgentv(
        ['eval', 'evals/sessions.yaml', '--out', 'eval.jsonl'],
        project.dir,
      );
      expect(evaluated.code, evaluated.stderr + evaluated.stdout).toBe(0);
      const evalLines = parseJsonl(await readFile(path.join(project.dir, 'eval.jsonl'), 'utf8'));
      expect(evalLines.map((line) => [line.eval_id, line.passed, line.target]).sort()).toEqual([
        ['claude-notes', true, 'default'],
        ['codex-notes', true, 'default'],
      ]);

      // A session file that is not one: the case errors with the file and line, no stack trace.
      await writeFile(path.join(project.dir, 'evals/sessions/rollout.jsonl'), 'not json\n');
      const broken = await runAgentv(
        ['grade', 'evals/sessions.yaml', '--out', 'broken.jsonl'],
        project.dir,
      );
      expect(broken.code).toBe(2);
      const brokenLines = parseJsonl(
        await readFile(path.join(project.dir, 'broken.jsonl'), 'utf8'),
      );
      expect(brokenLines.find((line) => line.eval_id === 'codex-notes')?.error).toContain(
        'evals/sessions/rollout.jsonl:1 is not JSON',
      );
      expect(broken.stderr + broken.stdout).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
    } finally {
      await project.cleanup();
    }
  });

  it('refuses a trace path outside the project, and a missing file, naming the case', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'agentv-outside-'));
    await writeFile(path.join(outside, 'rollout.jsonl'), '{}\n');
    const project = await createProject({
      'evals/bad.yaml': `evalcases:
  - id: escapes
    trace: { source: codex-session, path: ${JSON.stringify(path.join(outside, 'rollout.jsonl'))} }
    evaluators: [{ type: contains, value: x }]
  - id: missing
    trace: { source: claude-session, path: nowhere.jsonl }
    evaluators: [{ type: contains, value: x }]
  - id: wrong-source
    trace: { source: copilot-session, path: nowhere.jsonl }
    evaluators: [{ type: contains, value: x }]
`,
    });
    try {
      const run = await runAgentv(['validate', 'evals/bad.yaml'], project.dir);
      expect(run.code).not.toBe(0);
      const output = run.stdout + run.stderr;
      expect(output).toMatch(/evals\/bad\.yaml:3:\d+.*trace file .* outside/);
      expect(output).toContain('trace file nowhere.jsonl (claude-session) not found');
      expect(output).toContain(
        'trace.source must be one of "codex-session", "claude-session", "otlp-file", not "copilot-session"',
      );
    } finally {
      await project.cleanup();
      await rm(outside, { recursive: true, force: true });
    }
  });
});
