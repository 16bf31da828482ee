import type { ProviderFactory } from '@agentv/core/provider-utils';
import { agentProviderFactory } from '../shared/agent-provider-factory.js';
import { copilotCliAdapter } from './copilot-cli-adapter.js';

/** `provider: copilot-cli`: GitHub Copilot CLI (`@github/copilot`). */
export const copilotCliProviderFactory: ProviderFactory = agentProviderFactory(copilotCliAdapter);

/** `provider: copilot`, upstream AgentV's name for the same CLI. */
export const copilotCliAliasFactories: readonly ProviderFactory[] = (
  copilotCliAdapter.aliases ?? []
).map((alias) => agentProviderFactory(copilotCliAdapter, alias));
