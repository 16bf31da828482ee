import { lstat, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AgentCall, AgentInvocation } from '../shared/agent-adapter.js';
import type { CodingAgentSettings } from '../shared/settings.js';
import { copilotUsageFile } from './copilot-cli-reader.js';
import { copilotPermissionPattern, copilotToolsOf } from './copilot-tool-names.js';

/** Copilot CLI's tools that change files or run commands: hidden from the model in `read_only`. */
const CHANGING_TOOLS = ['shell', 'write_file', 'edit_file'].flatMap(copilotToolsOf);

/**
 * Copilot CLI's permission flags of a call. Prompt mode never asks: a tool call that needs an
 * approval the flags do not give is refused.
 * - `full` → `--allow-all`: every tool, any path, any URL.
 * - `workspace_write` → `--allow-all-tools`: every tool, but files only inside the working folder
 *   (and the temp folder), Copilot's path check.
 * - `read_only` → every tool but the shell and file changes, which are denied and not offered.
 * With `allowed_tools`, only those tools are approved (`--allow-tool`) in place of all of them;
 * `denied_tools` are denied (`--deny-tool`, which wins over any approval) and, when they name a
 * tool rather than a pattern, not offered (`--excluded-tools`).
 */
export function copilotPermissionArgs(
  settings: Pick<CodingAgentSettings, 'permissionMode' | 'allowedTools' | 'deniedTools'>,
): string[] {
  const args: string[] = [];
  const allowed = settings.allowedTools ?? [];
  const denied = [...(settings.deniedTools ?? [])];
  if (settings.permissionMode === 'read_only') denied.unshift('shell', 'write_file');
  if (allowed.length > 0) {
    if (settings.permissionMode === 'full') args.push('--allow-all-paths', '--allow-all-urls');
    for (const name of allowed) {
      const pattern = copilotPermissionPattern(name);
      if (pattern !== undefined) args.push(`--allow-tool=${pattern}`);
    }
  } else {
    args.push(settings.permissionMode === 'full' ? '--allow-all' : '--allow-all-tools');
  }
  const excluded = new Set(settings.permissionMode === 'read_only' ? CHANGING_TOOLS : []);
  for (const name of denied) {
    const pattern = copilotPermissionPattern(name);
    if (pattern !== undefined) args.push(`--deny-tool=${pattern}`);
    // Copilot hides tools by its own names: a pattern or an MCP tool can only be denied.
    if (!name.includes('(') && !name.startsWith('mcp:')) {
      for (const tool of copilotToolsOf(name)) excluded.add(tool);
    }
  }
  if (excluded.size > 0) args.push(`--excluded-tools=${[...excluded].join(',')}`);
  return [...new Set(args)];
}

/**
 * Where Copilot CLI unpacks the code its binary carries (~235 MB a version) on first start: a
 * folder of this user's in the temp folder, shared by every call, since that code is the same for
 * every call of a version and unpacking it into each call's home costs seconds a case. It holds no
 * state of the user or of a run. Undefined (each call unpacks into its own home) when the folder
 * is not this user's alone: Copilot runs the code it finds there.
 */
export function copilotPackageCache(): Promise<string | undefined> {
  packageCache ??= ownFolder(path.join(tmpdir(), `agentv-copilot-cli-packages-${uid()}`));
  return packageCache;
}

let packageCache: Promise<string | undefined> | undefined;

async function ownFolder(dir: string): Promise<string | undefined> {
  try {
    await mkdir(dir, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    const info = await lstat(dir);
    const mine = process.getuid === undefined || info.uid === process.getuid();
    return info.isDirectory() && mine && (info.mode & 0o022) === 0 ? dir : undefined;
  } catch {
    return undefined;
  }
}

function uid(): string {
  return process.getuid === undefined ? 'user' : String(process.getuid());
}

/**
 * The argv, environment and stdin of one `copilot` call: JSONL events on stdout
 * (`--output-format json`), the prompt on stdin (prompt mode, as `-p` but never in argv), no
 * questions to the user, no self-update, the token usage written into the call's home, its
 * config and session state in the call's home (`COPILOT_HOME`). With `base_url`, Copilot's own
 * provider mode (BYOK): the model endpoint there, `api_key` as the provider's key, and offline
 * mode, in which Copilot sends nothing to GitHub (no login, telemetry, update or GitHub MCP
 * server). Without it, Copilot's own models through GitHub: `api_key` (else the run's
 * `COPILOT_GITHUB_TOKEN`, `GH_TOKEN` or `GITHUB_TOKEN`) is the GitHub token.
 */
export async function copilotCliInvocation(call: AgentCall): Promise<AgentInvocation> {
  const { settings, home, runEnv } = call;
  const args = [
    '--output-format',
    'json',
    '--no-ask-user',
    '--no-auto-update',
    ...copilotPermissionArgs(settings),
    // A path of its own in argv: a sandbox maps it to where it mounts the home.
    '--usage-output-file',
    copilotUsageFile(home),
  ];
  if (settings.model !== undefined) args.push(`--model=${settings.model}`);
  args.push(...settings.args);
  const env: Record<string, string> = {
    COPILOT_HOME: path.join(home.home, '.copilot'),
    COPILOT_AUTO_UPDATE: 'false',
  };
  const packages = await copilotPackageCache();
  if (packages !== undefined) env.COPILOT_PKG_CACHE_HOME = packages;
  if (settings.baseUrl !== undefined) {
    env.COPILOT_PROVIDER_BASE_URL = settings.baseUrl;
    env.COPILOT_OFFLINE = 'true';
    const key = settings.apiKey ?? runEnv.COPILOT_PROVIDER_API_KEY;
    if (key) env.COPILOT_PROVIDER_API_KEY = key;
  } else {
    const token =
      settings.apiKey ?? runEnv.COPILOT_GITHUB_TOKEN ?? runEnv.GH_TOKEN ?? runEnv.GITHUB_TOKEN;
    if (token) env.COPILOT_GITHUB_TOKEN = token;
  }
  return { args, env, stdin: call.prompt };
}
