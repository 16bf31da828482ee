import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentOutcome } from '../shared/agent-adapter.js';
import { createAgentHome, removeAgentHome } from '../shared/agent-home.js';
import { runAgent } from '../shared/run-agent.js';
import type { CodingAgentSettings } from '../shared/settings.js';
import { ensureAgentCli } from '../test-support/agent-cli.js';
import {
  type ChatCompletionsServer,
  type ChatScriptTurn,
  startChatCompletionsServer,
} from '../test-support/chat-completions-server.js';
import { copilotCliAdapter } from './copilot-cli-adapter.js';

// The adapter's argv, environment and reader against the real `copilot`, run by the shared
// runner in provider mode against a scripted chat-completions server; the provider around them
// is tested through the CLI in apps/agentv.

let executable: string | undefined;
const roots: string[] = [];

beforeAll(async () => {
  executable = await ensureAgentCli('copilot-cli');
});

afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

interface Run {
  outcome: AgentOutcome;
  workdir: string;
  server: ChatCompletionsServer;
  stderr: string;
}

async function runCopilot(
  script: ChatScriptTurn[],
  settings: Partial<CodingAgentSettings> = {},
): Promise<Run> {
  const server = await startChatCompletionsServer(() => script);
  const workdir = mkdtempSync(join(tmpdir(), 'agentv-copilot-test-'));
  roots.push(workdir);
  writeFileSync(join(workdir, 'notes.txt'), 'draft\n');
  const home = await createAgentHome('copilot-cli-test');
  try {
    const call = {
      settings: {
        permissionMode: 'full' as const,
        args: [],
        env: {},
        maxOutputBytes: 10_000_000,
        baseUrl: server.baseUrl,
        apiKey: 'copilot-test-key',
        model: 'gpt-4.1',
        ...settings,
      },
      prompt: 'Update the notes.',
      workdir,
      home,
      runEnv: {},
    };
    const invocation = await copilotCliAdapter.prepare(call);
    const run = await runAgent({
      executable: executable as string,
      invocation,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...home.env, ...invocation.env },
      cwd: workdir,
      reader: copilotCliAdapter.createReader(call),
      displayName: copilotCliAdapter.displayName,
      timeoutMs: 90_000,
      maxOutputBytes: 10_000_000,
      mask: (text) => text,
    });
    return { outcome: run.outcome, workdir, server, stderr: run.stderr };
  } finally {
    await server.close();
    await removeAgentHome(home);
  }
}

const edits: ChatScriptTurn[] = [
  { tool: 'view', input: { path: 'notes.txt' } },
  { tool: 'edit', input: { path: 'notes.txt', old_str: 'draft', new_str: 'final' } },
  { shell: 'echo checked > checked.txt' },
  { answer: 'Notes updated.' },
];

const offered = (server: ChatCompletionsServer) =>
  ((server.conversation()[0]?.body.tools ?? []) as { function: { name: string } }[]).map(
    (tool) => tool.function.name,
  );

describe('copilot through the shared runner', { timeout: 180_000 }, () => {
  it('edits and runs commands, with the key sent to base_url and tokens from its usage file', async (context) => {
    if (!executable) return context.skip();
    const { outcome, workdir, server, stderr } = await runCopilot(edits);
    expect(outcome.failure, stderr).toBeUndefined();
    expect(outcome.answer).toBe('Notes updated.');
    expect(readFileSync(join(workdir, 'notes.txt'), 'utf8')).toBe('final\n');
    expect(existsSync(join(workdir, 'checked.txt'))).toBe(true);
    const calls = outcome.trace.filter((event) => event.type === 'tool_call');
    expect(calls.map((event) => `${event.name}/${event.rawName}`)).toEqual([
      'read_file/view',
      'edit_file/edit',
      'shell/bash',
    ]);
    // Four model calls of 120 input and 30 output tokens (the scripted server's counts).
    expect(outcome.usage).toMatchObject({ inputTokens: 480, outputTokens: 120 });
    expect(outcome.model).toBe('gpt-4.1');
    for (const request of server.requests) {
      expect(request.headers.authorization).toBe('Bearer copilot-test-key');
      expect(request.body.model).toBe('gpt-4.1');
    }
  });

  it('read_only offers no shell and no file changes: the edit is refused', async (context) => {
    if (!executable) return context.skip();
    const { outcome, workdir, server } = await runCopilot(edits, { permissionMode: 'read_only' });
    const names = offered(server);
    expect(names).toContain('view');
    for (const name of ['bash', 'edit', 'create']) expect(names).not.toContain(name);
    expect(readFileSync(join(workdir, 'notes.txt'), 'utf8')).toBe('draft\n');
    expect(existsSync(join(workdir, 'checked.txt'))).toBe(false);
    const results = outcome.trace.filter((event) => event.type === 'tool_result');
    expect(results[0]).toMatchObject({ name: 'read_file', metadata: { status: 'completed' } });
    expect(results[1]).toMatchObject({ rawName: 'edit', metadata: { status: 'error' } });
  });

  it('allowed_tools approves only those tools: an edit runs, a command is refused', async (context) => {
    if (!executable) return context.skip();
    // Copilot runs some commands it deems harmless (`echo`) without asking: `rm` it asks about.
    const { outcome, workdir } = await runCopilot(
      [
        { shell: 'rm notes.txt' },
        { tool: 'edit', input: { path: 'notes.txt', old_str: 'draft', new_str: 'final' } },
        { answer: 'Notes updated.' },
      ],
      { permissionMode: 'workspace_write', allowedTools: ['edit_file'] },
    );
    expect(outcome.answer).toBe('Notes updated.');
    expect(readFileSync(join(workdir, 'notes.txt'), 'utf8')).toBe('final\n');
    const shell = outcome.trace.find(
      (event) => event.type === 'tool_result' && event.rawName === 'bash',
    );
    expect(shell).toMatchObject({ metadata: { status: 'error' } });
    expect(String(shell?.output)).toContain('Permission denied');
  });
});
