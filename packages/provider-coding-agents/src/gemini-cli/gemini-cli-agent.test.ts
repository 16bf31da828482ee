import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentOutcome } from '../shared/agent-adapter.js';
import { createAgentHome, removeAgentHome } from '../shared/agent-home.js';
import { runAgent } from '../shared/run-agent.js';
import type { CodingAgentSettings } from '../shared/settings.js';
import { ensureAgentCli } from '../test-support/agent-cli.js';
import { type GeminiServer, startGeminiServer } from '../test-support/gemini-server.js';
import type { ScriptedTurn } from '../test-support/scripted-server.js';
import { geminiCliAdapter } from './gemini-cli-adapter.js';

// The adapter's argv, settings file, environment and reader against the real `gemini`, run by
// the shared runner; the provider around them is tested through the CLI in apps/agentv.

let executable: string | undefined;
const roots: string[] = [];

beforeAll(async () => {
  executable = await ensureAgentCli('gemini-cli');
});

afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

interface Run {
  outcome: AgentOutcome;
  workdir: string;
  server: GeminiServer;
}

async function runGemini(
  script: ScriptedTurn[],
  settings: Partial<CodingAgentSettings> = {},
): Promise<Run> {
  const server = await startGeminiServer(script);
  const workdir = mkdtempSync(join(tmpdir(), 'agentv-gemini-test-'));
  roots.push(workdir);
  writeFileSync(join(workdir, 'notes.txt'), 'draft\n');
  const home = await createAgentHome('gemini-cli-test');
  try {
    const invocation = await geminiCliAdapter.prepare({
      settings: {
        permissionMode: 'full',
        args: [],
        env: {},
        maxOutputBytes: 10_000_000,
        baseUrl: server.origin,
        apiKey: 'gemini-test-key',
        model: 'gemini-2.5-flash',
        ...settings,
      },
      prompt: 'Update the notes.',
      workdir,
      home,
      runEnv: {},
    });
    const run = await runAgent({
      executable: executable as string,
      invocation,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...home.env, ...invocation.env },
      cwd: workdir,
      reader: geminiCliAdapter.createReader(),
      displayName: geminiCliAdapter.displayName,
      timeoutMs: 90_000,
      maxOutputBytes: 10_000_000,
      mask: (text) => text,
    });
    return { outcome: run.outcome, workdir, server };
  } finally {
    await server.close();
    await removeAgentHome(home);
  }
}

const edits: ScriptedTurn[] = [
  { text: 'Let me look.', tools: [{ tool: 'read_file', input: { file_path: 'notes.txt' } }] },
  {
    tools: [
      {
        tool: 'replace',
        input: {
          file_path: 'notes.txt',
          old_string: 'draft',
          new_string: 'final',
          instruction: 'finish',
        },
      },
    ],
  },
  { tools: [{ tool: 'run_shell_command', input: { command: 'echo done > status.txt' } }] },
  { text: 'The notes are final.' },
];

const refused = (outcome: AgentOutcome) =>
  outcome.trace.filter((event) => event.metadata?.permission_denied === true).map((e) => e.rawName);

describe('Gemini CLI, for real', () => {
  it('with permission_mode full, reads, edits and runs commands without asking', async (context) => {
    if (!executable) return context.skip();
    const { outcome, workdir, server } = await runGemini(edits);
    expect(outcome.failure).toBeUndefined();
    expect(outcome.answer).toBe('The notes are final.');
    expect(readFileSync(join(workdir, 'notes.txt'), 'utf8')).toBe('final\n');
    expect(readFileSync(join(workdir, 'status.txt'), 'utf8')).toBe('done\n');
    expect(
      outcome.trace.filter((event) => event.type === 'tool_call').map((event) => event.name),
    ).toEqual(['read_file', 'edit_file', 'shell']);
    expect(outcome.usage).toMatchObject({ inputTokens: 480, outputTokens: 120 });
    expect(outcome.model).toBe('gemini-2.5-flash');
    expect(outcome.warnings).toBeUndefined();
    // Only model requests, each with the key, for the target's model.
    expect(new Set(server.requests.map((request) => request.url))).toEqual(
      new Set(['/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse']),
    );
    expect(server.requests.every((r) => r.headers['x-goog-api-key'] === 'gemini-test-key')).toBe(
      true,
    );
    // The prompt came through stdin.
    expect(JSON.stringify(server.requests[0]?.body.contents)).toContain('Update the notes.');
  });

  it('with permission_mode workspace_write, edits files but runs no commands, and says so', async (context) => {
    if (!executable) return context.skip();
    const { outcome, workdir } = await runGemini(edits, { permissionMode: 'workspace_write' });
    expect(readFileSync(join(workdir, 'notes.txt'), 'utf8')).toBe('final\n');
    expect(existsSync(join(workdir, 'status.txt'))).toBe(false);
    expect(refused(outcome)).toEqual(['run_shell_command']);
    expect(outcome.warnings?.[0]).toMatch(/Gemini CLI refused 1 tool call \(run_shell_command\)/);
  });

  it('with permission_mode read_only, reads but changes nothing', async (context) => {
    if (!executable) return context.skip();
    const { outcome, workdir } = await runGemini(edits, { permissionMode: 'read_only' });
    expect(readFileSync(join(workdir, 'notes.txt'), 'utf8')).toBe('draft\n');
    expect(existsSync(join(workdir, 'status.txt'))).toBe(false);
    expect(refused(outcome)).toEqual(['replace', 'run_shell_command']);
    expect(outcome.answer).toBe('The notes are final.');
  });

  it('lets allowed_tools (canonical names) through a read_only mode', async (context) => {
    if (!executable) return context.skip();
    const { outcome, workdir } = await runGemini(edits, {
      permissionMode: 'read_only',
      allowedTools: ['edit_file'],
    });
    expect(readFileSync(join(workdir, 'notes.txt'), 'utf8')).toBe('final\n');
    expect(refused(outcome)).toEqual(['run_shell_command']);
  });

  it('takes a denied tool away even with permission_mode full', async (context) => {
    if (!executable) return context.skip();
    const { outcome, workdir } = await runGemini(edits, { deniedTools: ['shell'] });
    expect(readFileSync(join(workdir, 'notes.txt'), 'utf8')).toBe('final\n');
    expect(existsSync(join(workdir, 'status.txt'))).toBe(false);
    expect(refused(outcome)).toEqual(['run_shell_command']);
  });

  it('without a key, exits 41, read as refused authentication', async (context) => {
    if (!executable) return context.skip();
    const { outcome, server } = await runGemini(edits, { apiKey: undefined });
    expect(outcome.failure?.kind).toBe('auth');
    expect(server.requests).toEqual([]);
  });
});
