import type { AgentAdapter } from '../shared/agent-adapter.js';
import { claudeCodeInvocation } from './claude-code-invocation.js';
import { createClaudeCodeReader } from './claude-code-reader.js';
import { CLAUDE_CODE_TOOL_NAMES } from './claude-tool-names.js';

/**
 * Claude Code (`claude -p --output-format stream-json --verbose`), the prompt on stdin. Upstream
 * AgentV's names `claude` and `claude-cli` select it too.
 */
export const claudeCodeAdapter: AgentAdapter = {
  kind: 'claude-code',
  aliases: ['claude', 'claude-cli'],
  displayName: 'Claude Code',
  npmPackage: '@anthropic-ai/claude-code',
  apiKeyVariable: 'ANTHROPIC_API_KEY',
  executable: 'claude',
  // The stream-json events read here (`permission_denied`, `result.permission_denials`) and the
  // `dontAsk` permission mode are those of the 2.1 line.
  minVersion: '2.1.0',
  parseVersion: (output) => /\b(\d+\.\d+\.\d+)\b/.exec(output)?.[1],
  prepare: claudeCodeInvocation,
  createReader: createClaudeCodeReader,
  toolNames: CLAUDE_CODE_TOOL_NAMES,
};
