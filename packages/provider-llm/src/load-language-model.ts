import type { LanguageModel } from 'ai';
import type { LlmProviderSettings } from './llm-provider-settings.js';

/**
 * Creates the AI SDK model of a target, sending its requests with `fetch`. The
 * SDK modules are imported here, on the first call, so commands that never
 * call a model do not load them. OpenAI-style kinds use the chat completions
 * API, which every OpenAI-compatible server speaks.
 */
export async function loadLanguageModel(
  settings: LlmProviderSettings,
  fetch: typeof globalThis.fetch,
): Promise<LanguageModel> {
  // The SDK's own console warnings (e.g. "model unknown, max output tokens limited")
  // would interleave with the run's progress and cannot be acted on in a targets file.
  const global = globalThis as { AI_SDK_LOG_WARNINGS?: unknown };
  if (global.AI_SDK_LOG_WARNINGS === undefined) global.AI_SDK_LOG_WARNINGS = false;
  const { apiKey, baseUrl, model } = settings;
  switch (settings.kind) {
    case 'openai': {
      const { createOpenAI } = await import('@ai-sdk/openai');
      return createOpenAI({ apiKey, baseURL: baseUrl, fetch }).chat(model);
    }
    case 'openai-compatible': {
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: baseUrl ?? '',
        apiKey,
        includeUsage: true,
        fetch,
      }).chatModel(model);
    }
    case 'azure': {
      const { createAzure } = await import('@ai-sdk/azure');
      return createAzure({
        apiKey,
        ...(baseUrl === undefined ? { resourceName: settings.resourceName } : { baseURL: baseUrl }),
        apiVersion: settings.apiVersion,
        // `/openai/deployments/<deployment>/chat/completions?api-version=...`, as AgentV 1.x called it.
        useDeploymentBasedUrls: true,
        fetch,
      }).chat(model);
    }
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return createAnthropic({ apiKey, baseURL: baseUrl, fetch }).languageModel(model);
    }
    case 'gemini': {
      const { createGoogleGenerativeAI } = await import('@ai-sdk/google');
      return createGoogleGenerativeAI({ apiKey, baseURL: baseUrl, fetch }).languageModel(model);
    }
  }
}
