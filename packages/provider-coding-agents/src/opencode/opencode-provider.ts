import type { ProviderFactory } from '@agentv/core/provider-utils';
import { agentProviderFactory } from '../shared/agent-provider-factory.js';
import { opencodeAdapter } from './opencode-adapter.js';

/** `provider: opencode`: the opencode CLI (`opencode-ai`). */
export const opencodeProviderFactory: ProviderFactory = agentProviderFactory(opencodeAdapter);
