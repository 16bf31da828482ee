import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AgentAdapter } from '../shared/agent-adapter.js';
import { CODEX_API_KEY_VARIABLE, codexConfigToml } from './codex-config.js';
import { CODEX_TOOL_NAMES, createCodexReader } from './codex-reader.js';

/**
 * Codex (`@openai/codex`): `codex exec --json` with `CODEX_HOME` and `HOME` of the call's own
 * (Codex writes under the real `~/.codex` even with `CODEX_HOME` set), its `config.toml` built
 * from the target's settings, the prompt on stdin.
 */
export const codexAdapter: AgentAdapter = {
  kind: 'codex',
  displayName: 'Codex',
  npmPackage: '@openai/codex',
  executable: 'codex',
  minVersion: '0.169.0',
  parseVersion: (output) => /codex(?:-cli)?\s+v?(\d+\.\d+\.\d+)/i.exec(output)?.[1],
  async prepare({ settings, workdir, home, prompt, runEnv }) {
    const codexHome = path.join(home.root, 'codex');
    // Synchronous: small, and on the way to the agent's start (see createAgentHome).
    mkdirSync(codexHome);
    writeFileSync(
      path.join(codexHome, 'config.toml'),
      codexConfigToml({
        ...(settings.baseUrl === undefined ? {} : { baseUrl: settings.baseUrl }),
        ...(settings.model === undefined ? {} : { model: settings.model }),
        permissionMode: settings.permissionMode,
      }),
    );
    // Without api_key, the variable a Codex user already has.
    const apiKey = settings.apiKey ?? runEnv.OPENAI_API_KEY ?? runEnv.CODEX_API_KEY;
    return {
      args: [
        'exec',
        '--json',
        '--skip-git-repo-check',
        '-C',
        workdir,
        ...(settings.model === undefined ? [] : ['-m', settings.model]),
        ...settings.args,
        // `-`: the prompt is read from stdin, so it never meets a shell or argv's limits.
        '-',
      ],
      env: {
        CODEX_HOME: codexHome,
        ...(apiKey === undefined ? {} : { [CODEX_API_KEY_VARIABLE]: apiKey }),
      },
      stdin: prompt,
    };
  },
  createReader: createCodexReader,
  toolNames: CODEX_TOOL_NAMES,
  unsupportedSettings: {
    allowedTools: 'Codex has no per-tool permissions; permission_mode sets what it may do',
    deniedTools: 'Codex has no per-tool permissions; permission_mode sets what it may do',
  },
};
