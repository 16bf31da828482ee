import type { AgentAdapter } from '../shared/agent-adapter.js';
import { geminiCliInvocation } from './gemini-cli-invocation.js';
import { createGeminiCliReader } from './gemini-cli-reader.js';
import { GEMINI_CLI_TOOL_NAMES } from './gemini-tool-names.js';

/**
 * Gemini CLI (`gemini -p '' --output-format stream-json`), the prompt on stdin, with a
 * `GEMINI_CLI_HOME` of the call's own holding its settings. Upstream AgentV has no provider for
 * it (its `gemini` is the model API, as here), so it has no other name.
 */
export const geminiCliAdapter: AgentAdapter = {
  kind: 'gemini-cli',
  displayName: 'Gemini CLI',
  npmPackage: '@google/gemini-cli',
  apiKeyVariable: 'GEMINI_API_KEY',
  executable: 'gemini',
  // `--skip-trust`, the `tool_use` / `tool_result` events with `tool_id` and `result.stats`
  // read here are those of the 0.61 line.
  minVersion: '0.61.0',
  parseVersion: (output) => /\b(\d+\.\d+\.\d+)\b/.exec(output)?.[1],
  prepare: geminiCliInvocation,
  createReader: createGeminiCliReader,
  toolNames: GEMINI_CLI_TOOL_NAMES,
};
