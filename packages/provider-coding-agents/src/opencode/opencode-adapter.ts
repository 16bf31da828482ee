import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AgentAdapter, AgentCall, AgentInvocation } from '../shared/agent-adapter.js';
import { OPENCODE_API_KEY_VARIABLE, opencodeConfig, opencodeModel } from './opencode-config.js';
import { createOpencodeReader } from './opencode-reader.js';
import { OPENCODE_TOOL_NAMES } from './opencode-tool-names.js';

/**
 * opencode (`opencode-ai`): `opencode run --format json --dir <workdir>`, the prompt on stdin,
 * its config written into the call's home and named by `OPENCODE_CONFIG`; its data, config,
 * cache and state folders are the home's XDG folders.
 */
export const opencodeAdapter: AgentAdapter = {
  kind: 'opencode',
  displayName: 'opencode',
  npmPackage: 'opencode-ai',
  apiKeyVariable: 'OPENAI_API_KEY',
  executable: 'opencode',
  // `permission` rules as written here (`*`, `external_directory`, the old `tools` merged into
  // them) are those of 1.1.1 and later.
  minVersion: '1.1.1',
  parseVersion: (output) => /\b(\d+\.\d+\.\d+)\b/.exec(output)?.[1],
  prepare: opencodeInvocation,
  createReader: createOpencodeReader,
  toolNames: OPENCODE_TOOL_NAMES,
  checkSettings(settings) {
    if (settings.base_url !== undefined && settings.model === undefined) {
      return [
        {
          severity: 'error',
          path: ['model'],
          message:
            'is required with base_url: opencode must be told which model the endpoint serves',
          hint: 'e.g. model: gpt-5 (sent to base_url as the model name)',
        },
      ];
    }
    return [];
  },
};

/**
 * Writes the call's `opencode.json` and returns its argv, env and stdin. Without `api_key`, a
 * model at `base_url` or one of OpenAI's gets the run's `OPENAI_API_KEY`; another provider's
 * model needs `api_key`, or its own variable in the target's `env`.
 */
export async function opencodeInvocation(call: AgentCall): Promise<AgentInvocation> {
  const { settings, home, runEnv } = call;
  const model = opencodeModel(settings);
  const openai =
    settings.baseUrl !== undefined || model === undefined || model.startsWith('openai/');
  const apiKey = settings.apiKey ?? (openai ? runEnv.OPENAI_API_KEY : undefined);
  const file = path.join(home.root, 'opencode.json');
  await writeFile(
    file,
    `${JSON.stringify(opencodeConfig(settings, apiKey !== undefined), null, 2)}\n`,
  );
  await markPluginPackageInstalled(path.join(home.xdg.config, 'opencode'));
  return {
    args: ['run', '--format', 'json', '--dir', call.workdir, ...settings.args],
    env: {
      OPENCODE_CONFIG: file,
      // Otherwise opencode downloads the models.dev catalogue at start.
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      ...(apiKey === undefined ? {} : { [OPENCODE_API_KEY_VARIABLE]: apiKey }),
    },
    // Read by `opencode run` when no message is on the command line: the prompt never meets argv.
    stdin: call.prompt,
  };
}

/**
 * At every start, opencode installs its plugin package (`@opencode-ai/plugin`) from the npm
 * registry, in the background, into each config folder it reads that has no `node_modules` or
 * whose `package-lock.json` does not list the package: for the call's fresh config folder, a
 * request to registry.npmjs.org on every call, whatever the model's address. A call loads no
 * plugins from that folder, so it is marked as installed instead. (A `.opencode` folder in the
 * workspace is the project's own configuration, and opencode treats it as it would anywhere.)
 */
async function markPluginPackageInstalled(configDir: string): Promise<void> {
  await mkdir(path.join(configDir, 'node_modules'), { recursive: true });
  await writeFile(
    path.join(configDir, 'package-lock.json'),
    `${JSON.stringify({ lockfileVersion: 3, packages: { '': { dependencies: { '@opencode-ai/plugin': '*' } } } })}\n`,
  );
}
