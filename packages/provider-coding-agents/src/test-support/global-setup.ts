import { agentsSkipped, ensureAgentCli } from './agent-cli.js';

/** Installs the pinned agent CLIs once, before any test file starts (see agent-cli.ts). */
export default async function setup(): Promise<void> {
  if (agentsSkipped()) {
    console.warn('AGENTV_SKIP_EXTERNAL_PROGRAMS=1: the tests of the real agent CLIs are skipped');
    return;
  }
  await ensureAgentCli('codex');
  await ensureAgentCli('claude-code');
  await ensureAgentCli('gemini-cli');
  await ensureAgentCli('opencode');
  await ensureAgentCli('copilot-cli');
}
