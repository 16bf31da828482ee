import { describe, expect, it } from 'vitest';
import type { AgentCall, AgentHome } from '../shared/agent-adapter.js';
import type { CodingAgentSettings } from '../shared/settings.js';
import { anthropicBaseUrl, claudeCodeInvocation } from './claude-code-invocation.js';

const home: AgentHome = {
  root: '/tmp/h',
  home: '/tmp/h/home',
  tmp: '/tmp/h/tmp',
  xdg: { config: '/tmp/h/c', data: '/tmp/h/d', cache: '/tmp/h/k', state: '/tmp/h/s' },
  env: { HOME: '/tmp/h/home', TMPDIR: '/tmp/h/tmp' },
};

function call(
  settings: Partial<CodingAgentSettings> = {},
  runEnv: Record<string, string> = {},
): AgentCall {
  return {
    runEnv,
    settings: { permissionMode: 'full', args: [], env: {}, maxOutputBytes: 1e6, ...settings },
    prompt: 'Fix the failing test; the prompt --is not a flag',
    workdir: '/tmp/work',
    home,
  };
}

describe('a claude -p call', () => {
  it('streams JSON events and reads the prompt from stdin, never from the command line', () => {
    const invocation = claudeCodeInvocation(call());
    expect(invocation.args.slice(0, 4)).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
    ]);
    expect(invocation.stdin).toBe('Fix the failing test; the prompt --is not a flag');
    expect(invocation.args.join(' ')).not.toContain('Fix the failing test');
  });

  it.each([
    ['full', 'bypassPermissions'],
    ['workspace_write', 'acceptEdits'],
    ['read_only', 'dontAsk'],
  ] as const)('maps permission_mode %s to --permission-mode %s', (mode, claudeMode) => {
    const { args, env } = claudeCodeInvocation(call({ permissionMode: mode }));
    expect(args[args.indexOf('--permission-mode') + 1]).toBe(claudeMode);
    // Claude Code refuses bypassPermissions as root unless told it runs in a sandbox.
    expect(env.IS_SANDBOX).toBe(mode === 'full' ? '1' : undefined);
  });

  it('keeps the agent off the vendor’s network except for model requests', () => {
    const { env } = claudeCodeInvocation(call());
    expect(env).toMatchObject({
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
    });
    expect(env.ANTHROPIC_BASE_URL).toBeUndefined();
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
  });

  it('passes the model, endpoint and key', () => {
    const invocation = claudeCodeInvocation(
      call({ model: 'claude-sonnet-4-5', baseUrl: 'http://127.0.0.1:9/v1/', apiKey: 'sk-x' }),
    );
    expect(invocation.args).toContain('--model');
    expect(invocation.args[invocation.args.indexOf('--model') + 1]).toBe('claude-sonnet-4-5');
    expect(invocation.env.ANTHROPIC_BASE_URL).toBe('http://127.0.0.1:9');
    expect(invocation.env.ANTHROPIC_API_KEY).toBe('sk-x');
  });

  it('falls back to the run’s ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL, which the settings override', () => {
    const runEnv = { ANTHROPIC_API_KEY: 'sk-env', ANTHROPIC_BASE_URL: 'https://gw.example' };
    expect(claudeCodeInvocation(call({}, runEnv)).env).toMatchObject({
      ANTHROPIC_API_KEY: 'sk-env',
      ANTHROPIC_BASE_URL: 'https://gw.example',
    });
    expect(
      claudeCodeInvocation(call({ apiKey: 'sk-set', baseUrl: 'http://127.0.0.1:9' }, runEnv)).env,
    ).toMatchObject({ ANTHROPIC_API_KEY: 'sk-set', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' });
  });

  it('names tools the way Claude Code does, canonical names included', () => {
    const { args } = claudeCodeInvocation(
      call({
        allowedTools: ['shell', 'edit_file', 'Bash(git diff:*)', 'mcp:github/create_issue'],
        deniedTools: ['web_fetch', 'search', 'mcp:slack/*'],
        args: ['--max-turns', '8'],
      }),
    );
    expect(args[args.indexOf('--allowedTools') + 1]).toBe(
      'Bash,Edit,MultiEdit,Bash(git diff:*),mcp__github__create_issue',
    );
    expect(args[args.indexOf('--disallowedTools') + 1]).toBe('WebFetch,Grep,Glob,mcp__slack');
    expect(args.slice(-2)).toEqual(['--max-turns', '8']);
  });
});

describe('anthropicBaseUrl', () => {
  it('drops the /v1 Claude Code adds itself', () => {
    expect(anthropicBaseUrl('https://api.anthropic.com/v1')).toBe('https://api.anthropic.com');
    expect(anthropicBaseUrl('https://gw.example/anthropic/')).toBe('https://gw.example/anthropic');
    expect(anthropicBaseUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
  });
});
