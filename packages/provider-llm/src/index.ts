export type { CachedAnswer, LlmCache, LlmCallKey } from './llm-cache.js';
export { createLlmCache, llmCacheKey } from './llm-cache.js';
export type { LlmKind } from './llm-kinds.js';
export { LLM_KINDS, llmSettingsKeys } from './llm-kinds.js';
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
export {
  DEFAULT_AZURE_API_VERSION,
  parseLlmSettings,
  validateLlmSettings,
} from './llm-provider-settings.js';
export { estimateCostUsd, lookupPrice, PRICE_TABLE } from './price-table.js';
export { parseRetryAfterMs } from './retry-after.js';
