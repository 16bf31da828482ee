// The public API of @agentv/provider-coding-agents: named exports only.
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
export type { CodingAgentSettings, PermissionMode } from './shared/settings.js';
export { CODING_AGENT_SETTINGS_KEYS, PERMISSION_MODES } from './shared/settings.js';
