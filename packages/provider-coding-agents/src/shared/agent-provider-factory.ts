import type { Issue } from '@agentv/core';
import {
  type ProviderFactory,
  providerOptions,
  type ResolvedTarget,
} from '@agentv/core/provider-utils';
import type { AgentAdapter } from './agent-adapter.js';
import { createCodingAgentProvider } from './coding-agent-provider.js';
import { findExecutable } from './find-executable.js';
import {
  CODING_AGENT_SETTINGS_KEYS,
  type CodingAgentSettings,
  parseCodingAgentSettings,
  validateCodingAgentSettings,
} from './settings.js';

const SNAKE_CASE: Record<keyof CodingAgentSettings, string> = {
  executable: 'executable',
  model: 'model',
  baseUrl: 'base_url',
  apiKey: 'api_key',
  permissionMode: 'permission_mode',
  allowedTools: 'allowed_tools',
  deniedTools: 'denied_tools',
  args: 'args',
  env: 'env',
  timeoutSeconds: 'timeout_seconds',
  maxOutputBytes: 'max_output_bytes',
};

/**
 * The `ProviderFactory` of an agent (`kind` is the adapter's, or one of its aliases): its
 * settings checked without starting the agent, settings it cannot honour reported as warnings,
 * and `checkUse` reporting a CLI that is not installed (on this machine; in a container the
 * image's is checked when it starts) and a container without a network, in `validate` as in a run.
 */
export function agentProviderFactory(adapter: AgentAdapter, kind = adapter.kind): ProviderFactory {
  return {
    kind,
    settingsKeys: CODING_AGENT_SETTINGS_KEYS,
    validate(target) {
      const issues = validateCodingAgentSettings(target);
      issues.push(...(adapter.checkSettings?.(target.settings) ?? []));
      for (const [key, reason] of Object.entries(adapter.unsupportedSettings ?? {})) {
        const setting = SNAKE_CASE[key as keyof CodingAgentSettings];
        if (target.settings[setting] !== undefined) {
          issues.push({
            severity: 'warning',
            path: [setting],
            message: `is not used by ${adapter.displayName}: ${reason}`,
          });
        }
      }
      return issues;
    },
    checkUse(target, _evalFile, _mode, workspace) {
      const docker = workspace?.docker;
      // In a container the agent is the image's, checked when its first container starts.
      if (docker === undefined) return installIssues(adapter, target);
      if (docker.network !== 'none') return [];
      return [
        {
          severity: 'warning',
          path: ['provider'],
          message: `${adapter.displayName} runs in a container with network: none: it reaches its model only if the model's endpoint (base_url) is served inside the container`,
          hint: 'set workspace.docker.network: bridge (or a network of yours) so the agent can reach its model API',
        },
      ];
    },
    create(target, context) {
      return createCodingAgentProvider(adapter, parseCodingAgentSettings(target), {
        ...providerOptions(target, context),
        baseDir: target.baseDir,
      });
    },
  };
}

/**
 * An error when the agent's CLI is not where the target says (or not on PATH), in `validate` as
 * before a run (CONTRIBUTING: validate fails where eval would refuse, as for a `cli` target's
 * missing program).
 */
function installIssues(adapter: AgentAdapter, target: ResolvedTarget): Issue[] {
  const executable = target.settings.executable;
  const command =
    typeof executable === 'string' && executable !== '' ? executable : adapter.executable;
  if (findExecutable(command, process.env.PATH, target.baseDir) !== undefined) return [];
  return [
    {
      severity: 'error',
      path: typeof executable === 'string' ? ['executable'] : ['provider'],
      message: `${adapter.displayName} is not installed: "${command}" was not found${command.includes('/') ? '' : ' on PATH'}`,
      hint: `install it with npm i -g ${adapter.npmPackage} (${adapter.minVersion} or newer), or set executable on the target to its path`,
    },
  ];
}
