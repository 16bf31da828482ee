import type { AgentCall, AgentInvocation } from '../shared/agent-adapter.js';
import type { PermissionMode } from '../shared/settings.js';
import { claudeToolNames } from './claude-tool-names.js';

/**
 * Claude Code's `--permission-mode` for each of AgentV's modes. In `-p` mode Claude Code never
 * asks: a call its mode does not cover is denied (and reported in `permission_denials`).
 * - `full` → `bypassPermissions`: every tool without asking. Claude Code refuses it as root
 *   unless `IS_SANDBOX=1`, which the invocation sets: the case runs in a workspace of its own.
 * - `workspace_write` → `acceptEdits`: file edits and commands inside the working folder.
 * - `read_only` → `dontAsk`: only what needs no permission (reading, read-only commands).
 */
export const CLAUDE_PERMISSION_MODES: Record<PermissionMode, string> = {
  full: 'bypassPermissions',
  workspace_write: 'acceptEdits',
  read_only: 'dontAsk',
};

/**
 * Claude Code's own retries of a failed model request (its default is 10, minutes against a dead
 * endpoint); two ride out a brief overload. A target's `env` may set another number.
 */
const MAX_API_RETRIES = '2';

/**
 * The argv, environment and stdin of one `claude -p` call: stream-json events on stdout, the
 * prompt on stdin (never on the command line, where its size is limited and `ps` shows it).
 * `base_url` and `api_key` fall back to the run's `ANTHROPIC_BASE_URL` and `ANTHROPIC_API_KEY`.
 */
export function claudeCodeInvocation(call: AgentCall): AgentInvocation {
  const { settings, runEnv } = call;
  const args = ['-p', '--output-format', 'stream-json', '--verbose'];
  args.push('--permission-mode', CLAUDE_PERMISSION_MODES[settings.permissionMode]);
  if (settings.model !== undefined) args.push('--model', settings.model);
  if (settings.allowedTools?.length) {
    args.push('--allowedTools', settings.allowedTools.flatMap(claudeToolNames).join(','));
  }
  if (settings.deniedTools?.length) {
    args.push('--disallowedTools', settings.deniedTools.flatMap(claudeToolNames).join(','));
  }
  args.push(...settings.args);

  const env: Record<string, string> = {
    // Without it Claude Code looks up and calls the vendor's API before the first request.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_MAX_RETRIES: MAX_API_RETRIES,
  };
  if (settings.permissionMode === 'full') env.IS_SANDBOX = '1';
  // Without the settings, the variables Claude Code itself reads, from the run's environment.
  const baseUrl = settings.baseUrl ?? runEnv.ANTHROPIC_BASE_URL;
  const apiKey = settings.apiKey ?? runEnv.ANTHROPIC_API_KEY;
  if (baseUrl) env.ANTHROPIC_BASE_URL = anthropicBaseUrl(baseUrl);
  if (apiKey) env.ANTHROPIC_API_KEY = apiKey;
  return { args, env, stdin: call.prompt };
}

/** Claude Code appends `/v1/messages` itself: a base URL ending in `/v1` loses it. */
export function anthropicBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}
