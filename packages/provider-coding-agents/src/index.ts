// The public API of @agentv/provider-coding-agents: named exports only.
export { claudeCodeProviderFactory } from './claude-code/claude-code-provider.js';
export { readClaudeSession } from './claude-code/claude-session.js';
export { codexProviderFactory } from './codex/codex-provider.js';
export { readCodexSession } from './codex/codex-session.js';
export { codingAgentProviderFactories } from './coding-agent-factories.js';
export { copilotCliProviderFactory } from './copilot-cli/copilot-cli-provider.js';
export { geminiCliProviderFactory } from './gemini-cli/gemini-cli-provider.js';
export { opencodeProviderFactory } from './opencode/opencode-provider.js';
export type {
  AgentAdapter,
  AgentCall,
  AgentEventReader,
  AgentFailure,
  AgentFailureKind,
  AgentHome,
  AgentInvocation,
  AgentOutcome,
} from './shared/agent-adapter.js';
export { agentProviderFactory } from './shared/agent-provider-factory.js';
export type { CodingAgentSettings, PermissionMode } from './shared/settings.js';
export { CODING_AGENT_SETTINGS_KEYS, PERMISSION_MODES } from './shared/settings.js';
