import { spawn } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { codexConfigToml } from '../../../../packages/provider-coding-agents/src/codex/codex-config.js';

// Sessions written by the real agent CLIs, run by hand as a user would (not through AgentV), each
// with a home folder of its own pointed at a scripted model server on 127.0.0.1.

/** Runs `command` with stdin closed (an agent CLI waits for more input on an open stdin). */
function run(
  command: string,
  args: string[],
  options: { cwd?: string; env: Record<string, string>; timeout: number },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${command} exited ${code ?? signal}: ${stderr}`)),
    );
  });
}

/** Every file under `dir`, recursively, as absolute paths. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * `codex exec` in `workdir` with `CODEX_HOME` and `HOME` under `home`, against the Responses server
 * at `baseUrl`; returns the rollout file it wrote (`sessions/YYYY/MM/DD/rollout-*.jsonl`).
 */
export async function codexSession(options: {
  codex: string;
  baseUrl: string;
  home: string;
  workdir: string;
  prompt: string;
}): Promise<string> {
  const codexHome = path.join(options.home, 'codex');
  await mkdir(codexHome, { recursive: true });
  await writeFile(
    path.join(codexHome, 'config.toml'),
    codexConfigToml({ baseUrl: options.baseUrl, model: 'gpt-5', permissionMode: 'full' }),
  );
  await run(
    options.codex,
    ['exec', '--skip-git-repo-check', '-C', options.workdir, options.prompt],
    {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: options.home,
        CODEX_HOME: codexHome,
        AGENTV_CODEX_API_KEY: 'sk-scripted',
      },
      timeout: 180_000,
    },
  );
  const rollouts = (await filesUnder(path.join(codexHome, 'sessions'))).filter((file) =>
    path.basename(file).startsWith('rollout-'),
  );
  if (rollouts.length !== 1) throw new Error(`codex wrote ${rollouts.length} rollout files`);
  return rollouts[0]!;
}

/**
 * `claude -p` in `workdir` with `HOME` under `home`, against the Anthropic server at `baseUrl`;
 * returns the session file it wrote (`~/.claude/projects/<dir>/<session>.jsonl`).
 */
export async function claudeSession(options: {
  claude: string;
  baseUrl: string;
  home: string;
  workdir: string;
  prompt: string;
}): Promise<string> {
  await mkdir(options.home, { recursive: true });
  await run(
    options.claude,
    [
      '-p',
      '--permission-mode',
      'bypassPermissions',
      '--model',
      'claude-sonnet-4-5',
      options.prompt,
    ],
    {
      cwd: options.workdir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: options.home,
        IS_SANDBOX: '1',
        ANTHROPIC_BASE_URL: options.baseUrl.replace(/\/v1$/, ''),
        ANTHROPIC_API_KEY: 'sk-ant-scripted',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_MAX_RETRIES: '0',
      },
      timeout: 180_000,
    },
  );
  const sessions = (await filesUnder(path.join(options.home, '.claude', 'projects'))).filter(
    (file) => file.endsWith('.jsonl'),
  );
  if (sessions.length !== 1) throw new Error(`claude wrote ${sessions.length} session files`);
  return sessions[0]!;
}
