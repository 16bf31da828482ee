import type { Issue } from '@agentv/core';
import {
  assertValidSettings,
  hasPlaceholder,
  type ModelPricing,
  type ResolvedTarget,
  settingsIssues,
} from '@agentv/core/provider-utils';
import { z } from 'zod';
import { credentialIssues, isGiven } from './llm-credentials.js';
import { LLM_KINDS, type LlmKind } from './llm-kinds.js';

/** Per-target prices in USD per million tokens; overrides the built-in price table. */
export type LlmPricing = ModelPricing;

/** The typed settings of an LLM target. */
export interface LlmProviderSettings {
  kind: LlmKind;
  /** The model id; for Azure the deployment name. */
  model: string;
  apiKey?: string;
  /**
   * The API base URL given to the SDK, e.g. `https://api.openai.com/v1`; for
   * Azure the resource URL ending in `/openai`.
   */
  baseUrl?: string;
  /** Azure resource name, used when no URL is given. */
  resourceName?: string;
  /** Azure `api-version`. */
  apiVersion?: string;
  temperature?: number;
  maxOutputTokens?: number;
  /** Anthropic extended thinking budget in tokens (AgentV 1.x `thinking_budget`). */
  thinkingBudget?: number;
  /** Bedrock: the AWS region, e.g. `us-east-1`. */
  region?: string;
  /** Bedrock: AWS access keys, used to sign requests when no `apiKey` is given. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Bedrock: the session token of temporary access keys. */
  sessionToken?: string;
  /** Vertex: the Google Cloud project, used with Google's application default credentials when no `apiKey` is given. */
  project?: string;
  /** Vertex: the Google Cloud location, e.g. `us-central1` or `global`. */
  location?: string;
  pricing?: LlmPricing;
}

/** The text settings of the newer kinds and their fields; a kind reads those in its `extraKeys`. */
const TEXT_SETTINGS = {
  region: 'region',
  access_key_id: 'accessKeyId',
  secret_access_key: 'secretAccessKey',
  session_token: 'sessionToken',
  project: 'project',
  location: 'location',
} as const satisfies Record<string, keyof LlmProviderSettings>;

type TextSetting = keyof typeof TEXT_SETTINGS;

/** AgentV 1.x's default Azure `api-version`, kept so its targets run unchanged. */
export const DEFAULT_AZURE_API_VERSION = '2024-12-01-preview';

/**
 * Checks an LLM target without calling anything: a missing model or key
 * (naming the variable that usually holds it), a bad base URL, invalid
 * numbers. Values whose `${{ VAR }}` is unset are left to core, which
 * reports the variable.
 */
export function validateLlmSettings(kind: LlmKind, target: ResolvedTarget): Issue[] {
  const info = LLM_KINDS[kind];
  const s = target.settings;
  const issues: Issue[] = [];
  const add = (field: string, message: string, hint?: string) =>
    issues.push({
      severity: 'error',
      path: field.split('.'),
      message,
      ...(hint === undefined ? {} : { hint }),
    });

  const modelField =
    kind === 'azure' ? firstKey(s, ['deployment', 'deployment_name', 'model']) : 'model';
  if (!isGiven(s[modelField ?? 'model']) && info.defaultModel === undefined) {
    add(
      kind === 'azure' ? 'deployment' : 'model',
      'is required',
      kind === 'azure'
        ? 'add `deployment: <your deployment name>` (AgentV 1.x targets write it as `model:`)'
        : `add e.g. \`model: ${info.exampleModel}\``,
    );
  } else if (modelField && s[modelField] !== undefined && typeof s[modelField] !== 'string') {
    add(modelField, 'must be a string');
  }

  if (s.api_key !== undefined && typeof s.api_key !== 'string') {
    add('api_key', 'must be a string', `write it as \`api_key: \${{ YOUR_KEY_VARIABLE }}\``);
  } else if (info.requiresApiKey) {
    issues.push(...credentialIssues(kind, s));
  }
  for (const { key, example } of info.requiredKeys ?? []) {
    if (!isGiven(s[key])) add(key, 'is required', `add \`${key}: ${example}\``);
  }

  const urlField = kind === 'azure' ? firstKey(s, ['base_url', 'endpoint']) : 'base_url';
  const url = urlField === undefined ? undefined : s[urlField];
  if (url === undefined) {
    if (info.requiresBaseUrl) {
      add(
        'base_url',
        'is required',
        `add the server's API URL, e.g. \`base_url: ${info.exampleBaseUrl}\``,
      );
    } else if (kind === 'azure' && !isGiven(s.resource_name)) {
      add(
        'endpoint',
        'is required',
        `add \`endpoint: ${info.exampleBaseUrl}\` (or \`resource_name: my-resource\`)`,
      );
    }
  } else if (urlField && !hasPlaceholder(url)) {
    // AgentV 1.x accepted an Azure resource name in `endpoint`.
    const resourceName = kind === 'azure' && urlField === 'endpoint' && isResourceName(url);
    if (!resourceName && !isHttpUrl(url)) {
      add(
        urlField,
        'must be an http:// or https:// URL',
        `e.g. \`${urlField}: ${info.exampleBaseUrl}\``,
      );
    }
  }

  issues.push(...settingsIssues(llmSettingsSchema(kind, s), s, { hints: settingHints(kind) }));
  return issues;
}

const PRICING_HINT =
  'e.g. `pricing: { input_per_mtok: 0.15, output_per_mtok: 0.6 }` (USD per million tokens)';

/** The settings of `kind` that are checked one by one: their types and ranges. */
function llmSettingsSchema(kind: LlmKind, settings: Record<string, unknown>): z.ZodType {
  const price = numberSetting({ min: 0 }, { required: true });
  const shape: Record<string, z.ZodType> = {
    temperature: numberSetting({ min: 0, max: 2 }),
    // AgentV 1.x's max_tokens counts only when max_output_tokens is not given.
    [settings.max_output_tokens !== undefined ? 'max_output_tokens' : 'max_tokens']: numberSetting({
      min: 1,
      integer: true,
    }),
    thinking_budget: numberSetting({ min: 1, integer: true }),
    pricing: z
      .object(
        { input_per_mtok: price, output_per_mtok: price },
        { error: 'must be a mapping with input_per_mtok and output_per_mtok' },
      )
      .optional(),
  };
  for (const key of textKeys(kind)) shape[key] = z.string({ error: 'must be a string' }).optional();
  return z.object(shape);
}

/** The hint of each setting `llmSettingsSchema` checks. */
function settingHints(kind: LlmKind): Record<string, string> {
  const hints: Record<string, string> = {
    temperature: 'e.g. `temperature: 0`',
    max_output_tokens: 'e.g. `max_output_tokens: 1024`',
    max_tokens: 'e.g. `max_output_tokens: 1024`',
    thinking_budget: 'e.g. `thinking_budget: 2048`',
    pricing: PRICING_HINT,
  };
  for (const key of textKeys(kind)) hints[key] = `quote the value: \`${key}: "..."\``;
  return hints;
}

/** A number, or a numeric string (what `${{ VAR }}` gives), in `range`; optional unless `required`. */
function numberSetting(
  range: { min: number; max?: number; integer?: boolean },
  { required = false } = {},
): z.ZodType {
  const bounds =
    range.max === undefined ? `>= ${range.min}` : `between ${range.min} and ${range.max}`;
  const what = range.integer ? `a whole number ${bounds}` : `a number ${bounds}`;
  const valid = (value: unknown) => {
    const parsed = toNumber(value);
    return (
      parsed !== undefined &&
      (!range.integer || Number.isInteger(parsed)) &&
      parsed >= range.min &&
      (range.max === undefined || parsed <= range.max)
    );
  };
  const schema = z.unknown().refine(valid, {
    error: (issue) =>
      issue.input === undefined
        ? 'is required'
        : `must be ${what}, not ${JSON.stringify(issue.input)}`,
  });
  return required ? schema : schema.optional();
}

/**
 * The typed settings of an LLM target. Throws core's located `InvalidInputError`
 * (`assertValidSettings`) when they do not pass `validateLlmSettings`.
 */
export function parseLlmSettings(kind: LlmKind, target: ResolvedTarget): LlmProviderSettings {
  assertValidSettings(target, validateLlmSettings(kind, target));
  const s = target.settings;
  const info = LLM_KINDS[kind];
  const text = (value: unknown) =>
    typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  const settings: LlmProviderSettings = {
    kind,
    model:
      (kind === 'azure' ? (text(s.deployment) ?? text(s.deployment_name)) : undefined) ??
      text(s.model) ??
      info.defaultModel ??
      '',
  };
  const apiKey = text(s.api_key);
  if (apiKey !== undefined) settings.apiKey = apiKey;
  for (const key of textKeys(kind)) {
    const value = text(s[key]);
    if (value !== undefined) settings[TEXT_SETTINGS[key]] = value;
  }
  if (kind === 'azure') {
    const endpoint = text(s.base_url) ?? text(s.endpoint);
    if (endpoint !== undefined && isHttpUrl(endpoint)) settings.baseUrl = azureBaseUrl(endpoint);
    else {
      const resourceName = text(s.resource_name) ?? endpoint;
      if (resourceName !== undefined) settings.resourceName = resourceName;
    }
    settings.apiVersion =
      (text(s.api_version) ?? text(s.version))?.replace(/^api[-_]?version\s*=\s*/i, '') ||
      DEFAULT_AZURE_API_VERSION;
  } else {
    const baseUrl = text(s.base_url);
    if (baseUrl !== undefined) settings.baseUrl = baseUrl.replace(/\/+$/, '');
  }
  const temperature = toNumber(s.temperature);
  if (temperature !== undefined) settings.temperature = temperature;
  const maxOutputTokens = toNumber(s.max_output_tokens ?? s.max_tokens);
  if (maxOutputTokens !== undefined) settings.maxOutputTokens = maxOutputTokens;
  const thinkingBudget = toNumber(s.thinking_budget);
  if (thinkingBudget !== undefined) settings.thinkingBudget = thinkingBudget;
  if (typeof s.pricing === 'object' && s.pricing !== null) {
    const pricing = s.pricing as Record<string, unknown>;
    const input = toNumber(pricing.input_per_mtok);
    const output = toNumber(pricing.output_per_mtok);
    if (input !== undefined && output !== undefined) {
      settings.pricing = { inputPerMtok: input, outputPerMtok: output };
    }
  }
  return settings;
}

/** The text settings `kind` understands. */
function textKeys(kind: LlmKind): TextSetting[] {
  return LLM_KINDS[kind].extraKeys.filter((key): key is TextSetting => key in TEXT_SETTINGS);
}

/** `https://x.openai.azure.com` → `https://x.openai.azure.com/openai`, the SDK's Azure base URL. */
function azureBaseUrl(endpoint: string): string {
  const trimmed = endpoint.replace(/\/+$/, '');
  return trimmed.endsWith('/openai') ? trimmed : `${trimmed}/openai`;
}

function firstKey(settings: Record<string, unknown>, keys: string[]): string | undefined {
  return keys.find((key) => settings[key] !== undefined);
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function isResourceName(value: unknown): boolean {
  return typeof value === 'string' && /^[A-Za-z0-9][A-Za-z0-9-]*$/.test(value.trim());
}

/** A number, or a numeric string (what `${{ VAR }}` gives); undefined otherwise. */
function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : undefined;
  }
  return undefined;
}
