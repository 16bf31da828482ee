import type { ProviderFactory } from '@agentv/core/provider-utils';
import { agentProviderFactory } from '../shared/agent-provider-factory.js';
import { codexAdapter } from './codex-adapter.js';

/** `provider: codex`: OpenAI's Codex CLI (`@openai/codex`). */
export const codexProviderFactory: ProviderFactory = agentProviderFactory(codexAdapter);
