// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} is targets-file syntax, not a JS template
/** The provider kinds this package serves, as written in a target's `provider:`. */
export type LlmKind =
  | 'openai'
  | 'openai-compatible'
  | 'azure'
  | 'anthropic'
  | 'gemini'
  | 'bedrock'
  | 'vertex'
  | 'mistral'
  | 'groq'
  | 'xai'
  | 'deepseek'
  | 'openrouter';

/** A setting and an example value of it, for hints. */
export interface ExampleSetting {
  key: string;
  example: string;
}

/**
 * Settings that stand in for `api_key` when all of them are given: the SDK signs requests with
 * them (Bedrock's AWS access keys) or finds credentials with them (Vertex's project and location).
 */
export interface AlternativeCredentials {
  keys: readonly ExampleSetting[];
  /** What they are, e.g. "AWS access keys". */
  label: string;
  /** What to check when the provider refuses them (401/403). */
  check: string;
}

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
  /** Settings that may replace `api_key`. */
  credentials?: AlternativeCredentials;
  /** Settings a target must give besides the model and the credentials. */
  requiredKeys?: readonly ExampleSetting[];
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
  bedrock: {
    kind: 'bedrock',
    label: 'Amazon Bedrock',
    keyVariables: ['AWS_BEARER_TOKEN_BEDROCK'],
    requiresApiKey: true,
    requiresBaseUrl: false,
    exampleModel: 'amazon.nova-lite-v1:0',
    exampleBaseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com',
    extraKeys: ['region', 'access_key_id', 'secret_access_key', 'session_token'],
    credentials: {
      keys: [
        { key: 'access_key_id', example: '${{ AWS_ACCESS_KEY_ID }}' },
        { key: 'secret_access_key', example: '${{ AWS_SECRET_ACCESS_KEY }}' },
      ],
      label: 'AWS access keys',
      check:
        'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and session_token, for temporary keys), and that the model is enabled in the region',
    },
    requiredKeys: [{ key: 'region', example: 'us-east-1' }],
  },
  vertex: {
    kind: 'vertex',
    label: 'Google Vertex AI',
    keyVariables: ['GOOGLE_VERTEX_API_KEY'],
    requiresApiKey: true,
    requiresBaseUrl: false,
    exampleModel: 'gemini-2.5-flash',
    exampleBaseUrl: 'https://us-central1-aiplatform.googleapis.com/v1',
    extraKeys: ['project', 'location'],
    credentials: {
      keys: [
        { key: 'project', example: 'my-project' },
        { key: 'location', example: 'us-central1' },
      ],
      label: "Google's application default credentials",
      check:
        "Google's application default credentials (`gcloud auth application-default login`, or GOOGLE_APPLICATION_CREDENTIALS) and their access to the project",
    },
  },
  mistral: {
    kind: 'mistral',
    label: 'Mistral',
    keyVariables: ['MISTRAL_API_KEY'],
    requiresApiKey: true,
    requiresBaseUrl: false,
    exampleModel: 'mistral-large-latest',
    exampleBaseUrl: 'https://api.mistral.ai/v1',
    extraKeys: [],
  },
  groq: {
    kind: 'groq',
    label: 'Groq',
    keyVariables: ['GROQ_API_KEY'],
    requiresApiKey: true,
    requiresBaseUrl: false,
    exampleModel: 'llama-3.3-70b-versatile',
    exampleBaseUrl: 'https://api.groq.com/openai/v1',
    extraKeys: [],
  },
  xai: {
    kind: 'xai',
    label: 'xAI',
    keyVariables: ['XAI_API_KEY'],
    requiresApiKey: true,
    requiresBaseUrl: false,
    exampleModel: 'grok-4',
    exampleBaseUrl: 'https://api.x.ai/v1',
    extraKeys: [],
  },
  deepseek: {
    kind: 'deepseek',
    label: 'DeepSeek',
    keyVariables: ['DEEPSEEK_API_KEY'],
    requiresApiKey: true,
    requiresBaseUrl: false,
    exampleModel: 'deepseek-chat',
    exampleBaseUrl: 'https://api.deepseek.com',
    extraKeys: [],
  },
  openrouter: {
    kind: 'openrouter',
    label: 'OpenRouter',
    keyVariables: ['OPENROUTER_API_KEY'],
    requiresApiKey: true,
    requiresBaseUrl: false,
    exampleModel: 'openai/gpt-4o-mini',
    exampleBaseUrl: 'https://openrouter.ai/api/v1',
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
