/** The provider kinds this package serves, as written in a target's `provider:`. */
export type LlmKind = 'openai' | 'openai-compatible' | 'azure' | 'anthropic' | 'gemini';

/** What differs between the LLM provider kinds, besides the SDK module that talks to them. */
export interface LlmKindInfo {
  kind: LlmKind;
  /** Human name used in messages. */
  label: string;
  /** Environment variables that usually hold the key, the conventional one first. */
  keyVariables: readonly string[];
  /** Whether a target must give `api_key` (local OpenAI-compatible servers often need none). */
  requiresApiKey: boolean;
  /** Whether a target must give `base_url`. */
  requiresBaseUrl: boolean;
  /** Model used when the target names none (AgentV 1.x gemini targets could leave it out). */
  defaultModel?: string;
  /** An example model for hints. */
  exampleModel: string;
  /** An example `base_url` for hints. */
  exampleBaseUrl: string;
  /** Provider-specific settings keys. */
  extraKeys: readonly string[];
}

export const LLM_KINDS: Readonly<Record<LlmKind, LlmKindInfo>> = {
  openai: {
    kind: 'openai',
    label: 'OpenAI',
    keyVariables: ['OPENAI_API_KEY'],
    requiresApiKey: true,
    requiresBaseUrl: false,
    exampleModel: 'gpt-4o-mini',
    exampleBaseUrl: 'https://api.openai.com/v1',
    extraKeys: [],
  },
  'openai-compatible': {
    kind: 'openai-compatible',
    label: 'OpenAI-compatible',
    keyVariables: ['OPENAI_API_KEY'],
    requiresApiKey: false,
    requiresBaseUrl: true,
    exampleModel: 'llama3.1',
    exampleBaseUrl: 'http://127.0.0.1:11434/v1',
    extraKeys: [],
  },
  azure: {
    kind: 'azure',
    label: 'Azure OpenAI',
    keyVariables: ['AZURE_OPENAI_API_KEY', 'AZURE_API_KEY'],
    requiresApiKey: true,
    requiresBaseUrl: false,
    exampleModel: 'gpt-4o-mini',
    exampleBaseUrl: 'https://my-resource.openai.azure.com',
    // `endpoint` and `version` are the AgentV 1.x spellings; `deployment_name` its alias.
    extraKeys: [
      'resource_name',
      'deployment',
      'deployment_name',
      'api_version',
      'endpoint',
      'version',
    ],
  },
  anthropic: {
    kind: 'anthropic',
    label: 'Anthropic',
    keyVariables: ['ANTHROPIC_API_KEY'],
    requiresApiKey: true,
    requiresBaseUrl: false,
    exampleModel: 'claude-sonnet-4-5',
    exampleBaseUrl: 'https://api.anthropic.com/v1',
    extraKeys: ['thinking_budget'],
  },
  gemini: {
    kind: 'gemini',
    label: 'Gemini',
    keyVariables: ['GOOGLE_GENERATIVE_AI_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY'],
    requiresApiKey: true,
    requiresBaseUrl: false,
    defaultModel: 'gemini-2.5-flash',
    exampleModel: 'gemini-2.5-flash',
    exampleBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    extraKeys: [],
  },
};

/** Keys every LLM target understands (common target keys included, for unknown-key warnings). */
export const COMMON_LLM_SETTINGS_KEYS = [
  'model',
  'api_key',
  'base_url',
  'temperature',
  'max_output_tokens',
  // AgentV 1.x spelling of max_output_tokens.
  'max_tokens',
  'pricing',
  'timeout_seconds',
  'max_retries',
  'workers',
  'judge_target',
] as const;

/** Every settings key a target of `kind` understands. */
export function llmSettingsKeys(kind: LlmKind): readonly string[] {
  return [...COMMON_LLM_SETTINGS_KEYS, ...LLM_KINDS[kind].extraKeys];
}
