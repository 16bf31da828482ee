import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentCall } from '../shared/agent-adapter.js';
import type { CodingAgentSettings } from '../shared/settings.js';
import { geminiBaseUrl, geminiCliInvocation } from './gemini-cli-invocation.js';

const root = mkdtempSync(join(tmpdir(), 'agentv-gemini-invocation-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let calls = 0;
function call(
  settings: Partial<CodingAgentSettings> = {},
  runEnv: Record<string, string> = {},
): AgentCall {
  const home = join(root, `home-${++calls}`);
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

const settingsOf = (c: AgentCall) =>
  JSON.parse(readFileSync(join(c.home.home, '.gemini/settings.json'), 'utf8'));

describe('a gemini call', () => {
  it('streams JSON events headless and reads the prompt from stdin, never from the command line', async () => {
    const invocation = await geminiCliInvocation(call({ model: 'gemini-2.5-flash' }));
    expect(invocation.args).toEqual([
      '-p',
      '',
      '--output-format',
      'stream-json',
      '--yolo',
      '--skip-trust',
      '-m',
      'gemini-2.5-flash',
    ]);
    expect(invocation.stdin).toBe('Fix the failing test; the prompt --is not a flag');
  });

  it('writes the settings Gemini CLI needs to run offline into a home of the call’s own', async () => {
    const c = call();
    const { env } = await geminiCliInvocation(c);
    expect(env).toMatchObject({ GEMINI_CLI_HOME: c.home.home, GEMINI_CLI_NO_RELAUNCH: 'true' });
    expect(settingsOf(c)).toEqual({
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      general: {
        enableAutoUpdate: false,
        enableAutoUpdateNotification: false,
        maxAttempts: 1,
        retryFetchErrors: false,
      },
    });
  });

  it.each([
    ['full', ['--yolo']],
    ['workspace_write', ['--approval-mode', 'auto_edit']],
    ['read_only', ['--approval-mode', 'default']],
  ] as const)('maps permission_mode %s to %j', async (mode, flags) => {
    const { args } = await geminiCliInvocation(call({ permissionMode: mode }));
    expect(args.slice(4, 4 + flags.length)).toEqual(flags);
    expect(args).toContain('--skip-trust');
  });

  it('passes the endpoint and key, falling back to the run’s GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY', async () => {
    expect(
      (await geminiCliInvocation(call({ baseUrl: 'http://127.0.0.1:9/v1beta/', apiKey: 'k-set' })))
        .env,
    ).toMatchObject({ GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9', GEMINI_API_KEY: 'k-set' });
    const runEnv = { GEMINI_API_KEY: 'k-env', GOOGLE_GEMINI_BASE_URL: 'https://gw.example' };
    expect((await geminiCliInvocation(call({}, runEnv))).env).toMatchObject({
      GEMINI_API_KEY: 'k-env',
      GOOGLE_GEMINI_BASE_URL: 'https://gw.example',
    });
    const bare = (await geminiCliInvocation(call())).env;
    expect(bare.GEMINI_API_KEY).toBeUndefined();
    expect(bare.GOOGLE_GEMINI_BASE_URL).toBeUndefined();
  });

  it('names tools the way Gemini CLI does in tools.allowed and tools.exclude; args come last', async () => {
    const c = call({
      allowedTools: [
        'shell',
        'edit_file',
        'run_shell_command(git diff)',
        'mcp:github/create_issue',
      ],
      deniedTools: ['web_fetch', 'search', 'mcp:slack/*'],
      args: ['--sandbox'],
    });
    const { args } = await geminiCliInvocation(c);
    expect(settingsOf(c).tools).toEqual({
      allowed: [
        'run_shell_command',
        'replace',
        'run_shell_command(git diff)',
        'mcp_github_create_issue',
      ],
      exclude: ['web_fetch', 'glob', 'grep_search', 'mcp_slack_*'],
    });
    expect(args.at(-1)).toBe('--sandbox');
  });
});

describe('geminiBaseUrl', () => {
  it('drops the API version Gemini CLI adds itself', () => {
    expect(geminiBaseUrl('https://generativelanguage.googleapis.com/v1beta')).toBe(
      'https://generativelanguage.googleapis.com',
    );
    expect(geminiBaseUrl('https://gw.example/google/')).toBe('https://gw.example/google');
    expect(geminiBaseUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
  });
});
