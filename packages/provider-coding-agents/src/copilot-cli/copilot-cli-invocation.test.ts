import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentCall } from '../shared/agent-adapter.js';
import type { CodingAgentSettings } from '../shared/settings.js';
import { copilotCliInvocation, copilotPermissionArgs } from './copilot-cli-invocation.js';

const root = mkdtempSync(join(tmpdir(), 'agentv-copilot-invocation-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function call(
  settings: Partial<CodingAgentSettings> = {},
  runEnv: Record<string, string> = {},
): AgentCall {
  const home = join(root, 'home');
  return {
    runEnv,
    settings: { permissionMode: 'full', args: [], env: {}, maxOutputBytes: 1e6, ...settings },
    prompt: 'Fix the failing test; the prompt --is not a flag',
    workdir: '/tmp/work',
    home: {
      root,
      home,
      tmp: join(root, 'tmp'),
      xdg: { config: '/x/c', data: '/x/d', cache: '/x/k', state: '/x/s' },
      env: { HOME: home },
    },
  };
}

const permissions = (settings: Partial<CodingAgentSettings>) =>
  copilotPermissionArgs({ permissionMode: 'full', ...settings });

describe('a copilot call', () => {
  it('streams JSON events in prompt mode with the prompt on stdin, never on the command line', async () => {
    const invocation = await copilotCliInvocation(
      call({ model: 'gpt-4.1', args: ['--reasoning-effort', 'low'] }),
    );
    expect(invocation.args).toEqual([
      '--output-format',
      'json',
      '--no-ask-user',
      '--no-auto-update',
      '--allow-all',
      '--usage-output-file',
      join(root, 'copilot-usage.json'),
      '--model=gpt-4.1',
      '--reasoning-effort',
      'low',
    ]);
    expect(invocation.stdin).toBe('Fix the failing test; the prompt --is not a flag');
    expect(invocation.args.join(' ')).not.toContain('Fix the failing test');
  });

  it('keeps config and sessions in the call home and unpacks the CLI code into a folder of this user alone', async () => {
    const { env } = await copilotCliInvocation(call());
    expect(env.COPILOT_HOME).toBe(join(root, 'home/.copilot'));
    expect(env.COPILOT_AUTO_UPDATE).toBe('false');
    const packages = env.COPILOT_PKG_CACHE_HOME as string;
    expect(packages).toContain('agentv-copilot-cli-packages-');
    const info = statSync(packages);
    expect(info.uid).toBe(process.getuid?.());
    expect(info.mode & 0o077).toBe(0);
  });

  it('with base_url, uses it as the model provider, offline, with api_key as its key', async () => {
    const { env } = await copilotCliInvocation(
      call(
        { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-target', model: 'gpt-4.1' },
        { GH_TOKEN: 'gh-user-token' },
      ),
    );
    expect(env).toMatchObject({
      COPILOT_PROVIDER_BASE_URL: 'http://127.0.0.1:9/v1',
      COPILOT_PROVIDER_API_KEY: 'sk-target',
      COPILOT_OFFLINE: 'true',
    });
    // The user's GitHub token is not passed on: the endpoint is the model's, not GitHub's.
    expect(env.COPILOT_GITHUB_TOKEN).toBeUndefined();
    const fallback = await copilotCliInvocation(
      call({ baseUrl: 'http://127.0.0.1:9/v1' }, { COPILOT_PROVIDER_API_KEY: 'sk-run' }),
    );
    expect(fallback.env.COPILOT_PROVIDER_API_KEY).toBe('sk-run');
  });

  it('without base_url, uses GitHub with api_key, else the run token, as the GitHub token', async () => {
    const own = await copilotCliInvocation(call({ apiKey: 'gh-target' }, { GH_TOKEN: 'gh-run' }));
    expect(own.env.COPILOT_GITHUB_TOKEN).toBe('gh-target');
    expect(own.env.COPILOT_OFFLINE).toBeUndefined();
    expect(own.env.COPILOT_PROVIDER_BASE_URL).toBeUndefined();
    const run = await copilotCliInvocation(call({}, { GH_TOKEN: 'gh-run', GITHUB_TOKEN: 'g' }));
    expect(run.env.COPILOT_GITHUB_TOKEN).toBe('gh-run');
    const none = await copilotCliInvocation(call());
    expect(none.env.COPILOT_GITHUB_TOKEN).toBeUndefined();
  });
});

describe('copilotPermissionArgs', () => {
  it('gives every permission in full and every tool inside the working folder in workspace_write', () => {
    expect(permissions({})).toEqual(['--allow-all']);
    expect(permissions({ permissionMode: 'workspace_write' })).toEqual(['--allow-all-tools']);
  });

  it('denies and hides the shell and file changes in read_only', () => {
    expect(permissions({ permissionMode: 'read_only' })).toEqual([
      '--allow-all-tools',
      '--deny-tool=shell',
      '--deny-tool=write',
      '--excluded-tools=bash,read_bash,write_bash,stop_bash,list_bash,powershell,create,apply_patch,edit,str_replace_editor',
    ]);
  });

  it('approves only allowed_tools, in Copilot permission patterns', () => {
    expect(
      permissions({ allowedTools: ['shell', 'edit_file', 'read_file', 'mcp:docs/search'] }),
    ).toEqual([
      '--allow-all-paths',
      '--allow-all-urls',
      '--allow-tool=shell',
      '--allow-tool=write',
      '--allow-tool=docs(search)',
    ]);
    expect(
      permissions({ permissionMode: 'workspace_write', allowedTools: ['shell(git:*)'] }),
    ).toEqual(['--allow-tool=shell(git:*)']);
  });

  it('denies and hides denied_tools; a pattern or an MCP tool is denied only', () => {
    expect(
      permissions({ deniedTools: ['web_fetch', 'search', 'shell(git push)', 'mcp:gh/*'] }),
    ).toEqual([
      '--allow-all',
      '--deny-tool=shell(git push)',
      '--deny-tool=gh',
      '--excluded-tools=web_fetch,grep,rg,glob',
    ]);
  });
});
