import type { AgentAdapter } from '../shared/agent-adapter.js';
import { copilotCliInvocation } from './copilot-cli-invocation.js';
import { createCopilotCliReader } from './copilot-cli-reader.js';
import { COPILOT_TOOL_NAMES } from './copilot-tool-names.js';

/**
 * GitHub Copilot CLI (`@github/copilot`): `copilot --output-format json` in prompt mode, the
 * prompt on stdin, its config and sessions in the call's home (`COPILOT_HOME`), a model at
 * `base_url` through its own provider mode (BYOK, offline: no GitHub login), its token usage read
 * from the file it writes at the end (`--usage-output-file`).
 */
export const copilotCliAdapter: AgentAdapter = {
  kind: 'copilot-cli',
  // Upstream AgentV's name for the same CLI.
  aliases: ['copilot'],
  displayName: 'Copilot CLI',
  npmPackage: '@github/copilot',
  executable: 'copilot',
  // --usage-output-file with per-model token counts, read for usage and cost, came in 1.0.81.
  minVersion: '1.0.81',
  parseVersion: (output) => /\b(\d+\.\d+\.\d+)\b/.exec(output)?.[1],
  prepare: copilotCliInvocation,
  createReader: createCopilotCliReader,
  toolNames: COPILOT_TOOL_NAMES,
  checkSettings(settings) {
    if (settings.base_url !== undefined && settings.model === undefined) {
      return [
        {
          severity: 'error',
          path: ['model'],
          message:
            'is required with base_url: Copilot CLI must be told which model the endpoint serves',
          hint: 'e.g. model: gpt-4.1 (sent to base_url as the model name)',
        },
      ];
    }
    return [];
  },
};
