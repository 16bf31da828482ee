import type { LanguageModel } from 'ai';
import type { LlmProviderSettings } from './llm-provider-settings.js';

/**
 * Creates the AI SDK model of a target, sending its requests with `fetch` (every kind: it is
 * what holds a response body to `max_output_bytes`). The
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
    case 'bedrock': {
      const { createAmazonBedrock } = await import('@ai-sdk/amazon-bedrock');
      return createAmazonBedrock({
        region: settings.region,
        // '' (not undefined) keeps the SDK from taking AWS_BEARER_TOKEN_BEDROCK from the shell
        // when the target signs with access keys: the target says which credentials it uses.
        apiKey: apiKey ?? '',
        accessKeyId: settings.accessKeyId,
        secretAccessKey: settings.secretAccessKey,
        sessionToken: settings.sessionToken,
        baseURL: baseUrl,
        fetch,
      }).languageModel(model);
    }
    case 'vertex': {
      const { createVertex } = await import('@ai-sdk/google-vertex');
      return createVertex({
        // '' keeps GOOGLE_VERTEX_API_KEY of the shell from turning a project target into express mode.
        apiKey: apiKey ?? '',
        project: settings.project,
        location: settings.location,
        baseURL: vertexBaseUrl(settings),
        fetch,
      }).languageModel(model);
    }
    case 'mistral': {
      const { createMistral } = await import('@ai-sdk/mistral');
      return createMistral({ apiKey, baseURL: baseUrl, fetch }).languageModel(model);
    }
    case 'groq': {
      const { createGroq } = await import('@ai-sdk/groq');
      return createGroq({ apiKey, baseURL: baseUrl, fetch }).languageModel(model);
    }
    case 'xai': {
      const { createXai } = await import('@ai-sdk/xai');
      return createXai({ apiKey, baseURL: baseUrl, fetch }).languageModel(model);
    }
    case 'deepseek': {
      const { createDeepSeek } = await import('@ai-sdk/deepseek');
      return createDeepSeek({ apiKey, baseURL: baseUrl, fetch }).languageModel(model);
    }
    case 'openrouter': {
      const { createOpenRouter } = await import('@openrouter/ai-sdk-provider');
      // `usage.include` makes OpenRouter report what the call cost (`reportedCostUsd`).
      return createOpenRouter({
        apiKey,
        baseURL: baseUrl,
        compatibility: 'strict',
        fetch,
      }).chat(model, {
        usage: { include: true },
      });
    }
  }
}

/**
 * Vertex's `base_url` is the API root with its version (`https://<location>-aiplatform.googleapis.com/v1`);
 * the SDK wants the publisher's URL below it: `/projects/<project>/locations/<location>/publishers/google`,
 * or `/publishers/google` in express mode (an API key). A URL that already names the publisher is used as written.
 */
function vertexBaseUrl(settings: LlmProviderSettings): string | undefined {
  const { baseUrl, apiKey, project, location } = settings;
  if (baseUrl === undefined || /\/publishers\/[^/]+$/.test(baseUrl)) return baseUrl;
  if (apiKey !== undefined) return `${baseUrl}/publishers/google`;
  return `${baseUrl}/projects/${project}/locations/${location}/publishers/google`;
}
