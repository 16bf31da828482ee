import type { CodingAgentSettings, PermissionMode } from '../shared/settings.js';
import { opencodePermissionKeys } from './opencode-tool-names.js';

/** The variable the config's `{env:…}` reads the API key from. */
export const OPENCODE_API_KEY_VARIABLE = 'AGENTV_OPENCODE_API_KEY';

/** opencode's provider id of the model endpoint at `base_url`. */
export const AGENTV_PROVIDER_ID = 'agentv';

type Action = 'allow' | 'deny';

/**
 * opencode's `permission` rules of each mode, before `allowed_tools` and `denied_tools`. opencode
 * never asks in `opencode run`: what a rule does not allow is refused.
 * - `full`: every tool, inside and outside the working folder.
 * - `workspace_write`: every tool, but no path outside the working folder (`external_directory`).
 * - `read_only`: no file changes (`edit` covers `write`, `edit` and `apply_patch`) and no shell
 *   command (opencode cannot tell one that only reads), nothing outside the working folder.
 */
const MODE_RULES: Record<PermissionMode, [string, Action][]> = {
  full: [['*', 'allow']],
  workspace_write: [
    ['*', 'allow'],
    ['external_directory', 'deny'],
  ],
  read_only: [
    ['*', 'allow'],
    ['edit', 'deny'],
    ['bash', 'deny'],
    ['external_directory', 'deny'],
  ],
};

/**
 * The `permission` object of a call. With `allowed_tools`, only those tools may run (`*` is
 * `deny`: nobody answers a prompt in an eval); `denied_tools` are denied last. opencode applies
 * the last rule that matches, so the order of the keys is the order of precedence.
 */
export function opencodePermission(
  settings: Pick<CodingAgentSettings, 'permissionMode' | 'allowedTools' | 'deniedTools'>,
): Record<string, Action> {
  const rules: [string, Action][] = MODE_RULES[settings.permissionMode].map(([key, action]) =>
    key === '*' && settings.allowedTools?.length ? ['*', 'deny'] : [key, action],
  );
  for (const tool of settings.allowedTools ?? []) {
    for (const key of opencodePermissionKeys(tool)) rules.push([key, 'allow']);
  }
  for (const tool of settings.deniedTools ?? []) {
    for (const key of opencodePermissionKeys(tool)) rules.push([key, 'deny']);
  }
  const permission: Record<string, Action> = {};
  for (const [key, action] of rules) {
    // A key set again moves to the end, where it takes precedence.
    delete permission[key];
    permission[key] = action;
  }
  return permission;
}

/**
 * opencode's model (`provider/model`) of a call: with `base_url`, the model of AgentV's own
 * provider (`agentv/<model>`); without, `model` as opencode names it (`anthropic/claude-…`), a
 * name without a provider being OpenAI's.
 */
export function opencodeModel(settings: Pick<CodingAgentSettings, 'baseUrl' | 'model'>) {
  if (settings.model === undefined) return undefined;
  if (settings.baseUrl !== undefined) return `${AGENTV_PROVIDER_ID}/${settings.model}`;
  return settings.model.includes('/') ? settings.model : `openai/${settings.model}`;
}

/**
 * The config file of one call (`OPENCODE_CONFIG`): no update check, no sharing, the permissions
 * of the target, and the model. With `base_url`, a provider of AgentV's own speaking OpenAI chat
 * completions there (`@ai-sdk/openai-compatible`) with the target's model marked as able to call
 * tools; without, opencode's own provider of the model. The key is read from
 * `OPENCODE_API_KEY_VARIABLE` (`hasKey`), never written into the file.
 */
export function opencodeConfig(settings: CodingAgentSettings, hasKey: boolean) {
  const model = opencodeModel(settings);
  const apiKey = hasKey ? { apiKey: `{env:${OPENCODE_API_KEY_VARIABLE}}` } : {};
  const config: Record<string, unknown> = {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    permission: opencodePermission(settings),
  };
  if (model !== undefined) config.model = model;
  if (settings.baseUrl !== undefined) {
    const models =
      settings.model === undefined
        ? {}
        : { [settings.model]: { name: settings.model, tool_call: true } };
    config.provider = {
      [AGENTV_PROVIDER_ID]: {
        npm: '@ai-sdk/openai-compatible',
        name: 'AgentV target',
        options: { baseURL: settings.baseUrl, ...apiKey },
        models,
      },
    };
  } else if (model !== undefined && hasKey) {
    config.provider = { [model.slice(0, model.indexOf('/'))]: { options: apiKey } };
  }
  return config;
}
