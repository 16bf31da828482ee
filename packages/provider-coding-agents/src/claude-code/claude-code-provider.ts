import type { ProviderFactory } from '@agentv/core/provider-utils';
import { agentProviderFactory } from '../shared/agent-provider-factory.js';
import { claudeCodeAdapter } from './claude-code-adapter.js';

/** `provider: claude-code`: Anthropic's Claude Code CLI (`@anthropic-ai/claude-code`). */
export const claudeCodeProviderFactory: ProviderFactory = agentProviderFactory(claudeCodeAdapter);

/** `provider: claude` and `provider: claude-cli`, upstream AgentV's names for the same CLI. */
export const claudeCodeAliasFactories: readonly ProviderFactory[] = (
  claudeCodeAdapter.aliases ?? []
).map((alias) => agentProviderFactory(claudeCodeAdapter, alias));
