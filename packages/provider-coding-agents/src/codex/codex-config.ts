import type { PermissionMode } from '../shared/settings.js';

/** The variable Codex reads the API key from (the provider table's `env_key`). */
export const CODEX_API_KEY_VARIABLE = 'AGENTV_CODEX_API_KEY';

/** Codex's endpoint when the target sets no `base_url`. */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

const SANDBOX_MODES: Record<PermissionMode, string> = {
  full: 'danger-full-access',
  workspace_write: 'workspace-write',
  read_only: 'read-only',
};

/**
 * The `config.toml` of one call: never ask for approval, the sandbox of `permission_mode`, and a
 * model provider of AgentV's own (`agentv`) at `base_url` speaking the Responses API, its key
 * read from `CODEX_API_KEY_VARIABLE`. Codex's own retries are off: AgentV's retry policy decides
 * (a 401 retried five times costs seconds and changes nothing).
 */
export function codexConfigToml(options: {
  baseUrl?: string;
  model?: string;
  permissionMode: PermissionMode;
}): string {
  const lines = [
    '# Written by AgentV for one eval call; removed after it.',
    ...(options.model === undefined ? [] : [`model = ${toml(options.model)}`]),
    'model_provider = "agentv"',
    'approval_policy = "never"',
    `sandbox_mode = ${toml(SANDBOX_MODES[options.permissionMode])}`,
    'check_for_update_on_startup = false',
    '',
    // Codex exports usage metrics to OpenAI (ab.chatgpt.com) by default, and at every start
    // syncs its plugin catalogue from github.com: neither is the model at `base_url`.
    '[analytics]',
    'enabled = false',
    '',
    '[features]',
    'plugins = false',
    '',
    '[model_providers.agentv]',
    'name = "AgentV target"',
    `base_url = ${toml(options.baseUrl ?? OPENAI_BASE_URL)}`,
    `env_key = ${toml(CODEX_API_KEY_VARIABLE)}`,
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ];
  return lines.join('\n');
}

/** A TOML basic string: JSON's escapes are TOML's (JSON.stringify never writes `\/`). */
function toml(value: string): string {
  return JSON.stringify(value);
}
