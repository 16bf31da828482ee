import { maxOutputBytes, type ProviderFactory } from '@agentv/core/provider-utils';
import { type LlmKind, llmSettingsKeys } from './llm-kinds.js';
import { createLlmProvider } from './llm-provider.js';
import { parseLlmSettings, validateLlmSettings } from './llm-provider-settings.js';

/** The factory of one LLM kind, registered as `provider: <as>` (an alias) or `provider: <kind>`. */
export function createLlmProviderFactory(kind: LlmKind, as: string = kind): ProviderFactory {
  return {
    kind: as,
    settingsKeys: llmSettingsKeys(kind),
    canJudge: true,
    validate: (target) => validateLlmSettings(kind, target),
    create: (target, context) => {
      return createLlmProvider(target.name, parseLlmSettings(kind, target), {
        ...context,
        kind: as,
        ...(target.timeoutSeconds === undefined ? {} : { timeoutSeconds: target.timeoutSeconds }),
        maxOutputBytes: maxOutputBytes(target),
        ...(target.secretValues === undefined ? {} : { secrets: target.secretValues }),
      });
    },
  };
}

/** `provider: openai`: OpenAI's chat completions API. */
export const openaiProviderFactory = createLlmProviderFactory('openai');
/** `provider: openai-compatible`: any server speaking chat completions at `base_url` (vLLM, Ollama, ...). */
export const openaiCompatibleProviderFactory = createLlmProviderFactory('openai-compatible');
/** `provider: azure` (AgentV 1.x also `azure-openai`): Azure OpenAI deployments. */
export const azureProviderFactory = createLlmProviderFactory('azure');
/** `provider: anthropic`: Anthropic's messages API. */
export const anthropicProviderFactory = createLlmProviderFactory('anthropic');
/** `provider: gemini` (AgentV 1.x also `google`, `google-gemini`): Gemini's generateContent API. */
export const geminiProviderFactory = createLlmProviderFactory('gemini');

/**
 * Every LLM provider factory, aliases included: register them all at once. The kinds without a
 * constant above (`bedrock`, `vertex`, `mistral`, `groq`, `xai`, `deepseek`, `openrouter`) come
 * from `createLlmProviderFactory(kind)`.
 */
export const llmProviderFactories: readonly ProviderFactory[] = [
  openaiProviderFactory,
  openaiCompatibleProviderFactory,
  azureProviderFactory,
  anthropicProviderFactory,
  geminiProviderFactory,
  createLlmProviderFactory('bedrock'),
  createLlmProviderFactory('vertex'),
  createLlmProviderFactory('mistral'),
  createLlmProviderFactory('groq'),
  createLlmProviderFactory('xai'),
  createLlmProviderFactory('deepseek'),
  createLlmProviderFactory('openrouter'),
  createLlmProviderFactory('azure', 'azure-openai'),
  createLlmProviderFactory('gemini', 'google'),
  createLlmProviderFactory('gemini', 'google-gemini'),
  // The names of the AI SDK packages, which users coming from it may write.
  createLlmProviderFactory('bedrock', 'amazon-bedrock'),
  createLlmProviderFactory('vertex', 'google-vertex'),
];
