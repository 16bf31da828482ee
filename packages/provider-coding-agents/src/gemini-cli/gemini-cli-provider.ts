import type { ProviderFactory } from '@agentv/core/provider-utils';
import { agentProviderFactory } from '../shared/agent-provider-factory.js';
import { geminiCliAdapter } from './gemini-cli-adapter.js';

/** `provider: gemini-cli`: Google's Gemini CLI (`@google/gemini-cli`). */
export const geminiCliProviderFactory: ProviderFactory = agentProviderFactory(geminiCliAdapter);
