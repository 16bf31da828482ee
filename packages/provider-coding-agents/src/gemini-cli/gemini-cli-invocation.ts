import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AgentCall, AgentInvocation } from '../shared/agent-adapter.js';
import type { CodingAgentSettings, PermissionMode } from '../shared/settings.js';
import { geminiToolNames } from './gemini-tool-names.js';

/**
 * Gemini CLI's approval mode for each of AgentV's modes. Headless, Gemini CLI never asks: a tool
 * its mode does not approve is not offered to the model at all (a call of it fails with
 * `tool_not_registered`).
 * - `full` → `--yolo`: every tool without asking.
 * - `workspace_write` → `auto_edit`: file edits (inside the working folder) and web fetches;
 *   no commands, unless `allowed_tools` lists the shell.
 * - `read_only` → `default`: only tools that change nothing (read, search, list).
 */
export const GEMINI_APPROVAL_ARGS: Record<PermissionMode, string[]> = {
  full: ['--yolo'],
  workspace_write: ['--approval-mode', 'auto_edit'],
  read_only: ['--approval-mode', 'default'],
};

/**
 * The user settings of one call (`$GEMINI_CLI_HOME/.gemini/settings.json`): the API-key auth
 * (headless Gemini CLI exits 41 without a selected auth type, and a workspace's settings file
 * cannot select it), no usage statistics or update checks, and no retries of its own (AgentV's
 * retry policy decides). `allowed_tools` / `denied_tools` become `tools.allowed` / `tools.exclude`.
 */
export function geminiSettings(settings: CodingAgentSettings): Record<string, unknown> {
  const tools: Record<string, string[]> = {};
  if (settings.allowedTools?.length) tools.allowed = settings.allowedTools.flatMap(geminiToolNames);
  if (settings.deniedTools?.length) tools.exclude = settings.deniedTools.flatMap(geminiToolNames);
  return {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
    general: {
      enableAutoUpdate: false,
      enableAutoUpdateNotification: false,
      maxAttempts: 1,
      retryFetchErrors: false,
    },
    ...(Object.keys(tools).length > 0 ? { tools } : {}),
  };
}

/**
 * Writes the call's settings into its home and returns the argv, environment and stdin of one
 * `gemini` call: stream-json events on stdout, the prompt on stdin (`-p ''` makes the run
 * headless; Gemini CLI reads stdin before the empty prompt), the workspace trusted for the run
 * (`--skip-trust`, without which the approval mode falls back to `default`). `base_url` and
 * `api_key` fall back to the run's `GOOGLE_GEMINI_BASE_URL` and `GEMINI_API_KEY`.
 */
export async function geminiCliInvocation(call: AgentCall): Promise<AgentInvocation> {
  const { settings, runEnv, home } = call;
  const settingsDir = path.join(home.home, '.gemini');
  await mkdir(settingsDir, { recursive: true });
  await writeFile(
    path.join(settingsDir, 'settings.json'),
    `${JSON.stringify(geminiSettings(settings), null, 2)}\n`,
  );
  const args = [
    '-p',
    '',
    '--output-format',
    'stream-json',
    ...GEMINI_APPROVAL_ARGS[settings.permissionMode],
    '--skip-trust',
  ];
  // Without a model Gemini CLI first asks a router model which one to use: one more request.
  if (settings.model !== undefined) args.push('-m', settings.model);
  args.push(...settings.args);
  const env: Record<string, string> = {
    GEMINI_CLI_HOME: home.home,
    // It would otherwise start itself again in a child Node with a larger heap (~0.5 s).
    GEMINI_CLI_NO_RELAUNCH: 'true',
  };
  const baseUrl = settings.baseUrl ?? runEnv.GOOGLE_GEMINI_BASE_URL;
  const apiKey = settings.apiKey ?? runEnv.GEMINI_API_KEY;
  if (baseUrl) env.GOOGLE_GEMINI_BASE_URL = geminiBaseUrl(baseUrl);
  if (apiKey) env.GEMINI_API_KEY = apiKey;
  return { args, env, stdin: call.prompt };
}

/** Gemini CLI appends `/v1beta/models/…` itself: a base URL ending in an API version loses it. */
export function geminiBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1(?:beta|alpha)?$/, '');
}
