// The public API of @agentv/provider-llm: named exports only.

// The price table moved to core (coding agents price tokens too); still exported here for users.
export { estimateCostUsd, lookupPrice, PRICE_TABLE } from '@agentv/core/provider-utils';
export type { LlmKind } from './llm-kinds.js';
export { LLM_KINDS } from './llm-kinds.js';
export type { LlmProviderOptions } from './llm-provider.js';
export { createLlmProvider } from './llm-provider.js';
export {
  anthropicProviderFactory,
  azureProviderFactory,
  createLlmProviderFactory,
  geminiProviderFactory,
  llmProviderFactories,
  openaiCompatibleProviderFactory,
  openaiProviderFactory,
} from './llm-provider-factories.js';
export type { LlmPricing, LlmProviderSettings } from './llm-provider-settings.js';
