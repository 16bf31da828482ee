import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess } from '@agentv/core/provider-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentHome, AgentOutcome } from '../shared/agent-adapter.js';
import type { CodingAgentSettings } from '../shared/settings.js';
import { ensureAgentCli } from '../test-support/agent-cli.js';
import { type ScriptedTurn, startAnthropicServer } from '../test-support/anthropic-server.js';
import { claudeCodeAdapter } from './claude-code-adapter.js';

// The adapter's argv, environment and reader against the real `claude`, run through core's
// process runner; the provider around them is tested through the CLI in apps/agentv.
let executable: string | undefined;
const roots: string[] = [];

beforeAll(async () => {
  executable = await ensureAgentCli('claude-code');
});
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

interface Run {
  outcome: AgentOutcome;
  workdir: string;
}

async function runClaude(
  script: ScriptedTurn[],
  settings: Partial<CodingAgentSettings> = {},
): Promise<Run> {
  const server = await startAnthropicServer(script);
  const root = mkdtempSync(join(tmpdir(), 'agentv-claude-test-'));
  roots.push(root);
  const home: AgentHome = {
    root,
    home: join(root, 'home'),
    tmp: join(root, 'tmp'),
    xdg: {
      config: join(root, 'xdg/config'),
      data: join(root, 'xdg/data'),
      cache: join(root, 'xdg/cache'),
      state: join(root, 'xdg/state'),
    },
    env: {},
  };
  home.env = { HOME: home.home, TMPDIR: home.tmp };
  const workdir = join(root, 'work');
  for (const dir of [home.home, home.tmp, workdir]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(workdir, 'notes.txt'), 'draft\n');
  try {
    const invocation = await claudeCodeAdapter.prepare({
      settings: {
        permissionMode: 'full',
        args: [],
        env: {},
        maxOutputBytes: 10_000_000,
        baseUrl: server.origin,
        apiKey: 'sk-ant-test',
        ...settings,
      },
      prompt: 'Update the notes.',
      workdir,
      home,
      runEnv: {},
    });
    const result = await runProcess({
      command: [executable as string, ...invocation.args],
      cwd: workdir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...home.env, ...invocation.env },
      stdin: invocation.stdin,
      timeoutMs: 90_000,
    });
    const reader = claudeCodeAdapter.createReader();
    for (const line of result.stdout.split('\n')) {
      if (line.trim() !== '') reader.push(JSON.parse(line), new Date());
    }
    return {
      outcome: reader.finish({ exitCode: result.exitCode, stderr: result.stderr }),
      workdir,
    };
  } finally {
    await server.close();
  }
}

const edits: ScriptedTurn[] = [
  { tools: [{ tool: 'Read', input: { file_path: 'notes.txt' } }] },
  {
    tools: [
      { tool: 'Edit', input: { file_path: 'notes.txt', old_string: 'draft', new_string: 'final' } },
    ],
  },
  { tools: [{ tool: 'Bash', input: { command: 'echo done > status.txt' } }] },
  { text: 'The notes are final.' },
];

describe('Claude Code, for real', () => {
  it('with permission_mode full, reads, edits and runs commands without asking', async (context) => {
    if (!executable) return context.skip();
    const { outcome, workdir } = await runClaude(edits);
    expect(outcome.failure).toBeUndefined();
    expect(outcome.answer).toBe('The notes are final.');
    expect(readFileSync(join(workdir, 'notes.txt'), 'utf8')).toBe('final\n');
    expect(readFileSync(join(workdir, 'status.txt'), 'utf8')).toBe('done\n');
    expect(
      outcome.trace.filter((event) => event.type === 'tool_call').map((event) => event.name),
    ).toEqual(['read_file', 'edit_file', 'shell']);
    expect(outcome.usage?.outputTokens).toBe(120);
    expect(outcome.warnings).toBeUndefined();
  });

  it('with permission_mode workspace_write, edits files in the workspace', async (context) => {
    if (!executable) return context.skip();
    const { outcome, workdir } = await runClaude(edits.slice(0, 2).concat({ text: 'Edited.' }), {
      permissionMode: 'workspace_write',
    });
    expect(outcome.warnings).toBeUndefined();
    expect(readFileSync(join(workdir, 'notes.txt'), 'utf8')).toBe('final\n');
  });

  it('with permission_mode read_only, reads but is denied an edit, and says so', async (context) => {
    if (!executable) return context.skip();
    const { outcome, workdir } = await runClaude(edits, { permissionMode: 'read_only' });
    expect(readFileSync(join(workdir, 'notes.txt'), 'utf8')).toBe('draft\n');
    expect(existsSync(join(workdir, 'status.txt'))).toBe(false);
    const read = outcome.trace.find((e) => e.type === 'tool_result' && e.name === 'read_file');
    expect(String(read?.output)).toContain('draft');
    const denied = outcome.trace.filter((event) => event.type === 'error');
    expect(denied.map((event) => event.rawName)).toEqual(['Edit', 'Bash']);
    expect(outcome.warnings?.[0]).toMatch(/denied 2 tool calls \(Edit, Bash\)/);
  });

  it('lets allowed_tools (canonical names) through a read_only mode', async (context) => {
    if (!executable) return context.skip();
    const { outcome, workdir } = await runClaude(edits, {
      permissionMode: 'read_only',
      allowedTools: ['edit_file'],
    });
    expect(readFileSync(join(workdir, 'notes.txt'), 'utf8')).toBe('final\n');
    expect(outcome.trace.filter((e) => e.type === 'error').map((e) => e.rawName)).toEqual(['Bash']);
  });

  it('takes a denied tool away entirely', async (context) => {
    if (!executable) return context.skip();
    const { outcome, workdir } = await runClaude(edits.slice(2), { deniedTools: ['shell'] });
    expect(existsSync(join(workdir, 'status.txt'))).toBe(false);
    const result = outcome.trace.find((event) => event.type === 'tool_result');
    expect(result).toMatchObject({ name: 'shell', metadata: { is_error: true } });
    expect(String(result?.output)).toContain('No such tool available');
  });
});
