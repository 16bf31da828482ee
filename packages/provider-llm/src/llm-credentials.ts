import type { Issue } from '@agentv/core';
import { ProviderError } from '@agentv/core/provider-utils';
import { LLM_KINDS, type LlmKind } from './llm-kinds.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Whether a setting has a value: a non-blank string, or any other value that is present. */
export function isGiven(value: unknown): boolean {
  return typeof value === 'string' ? value.trim() !== '' : value !== undefined;
}

/** The variable that most likely holds the key of `kind`: the first one set, else the conventional one. */
export function likelyKeyVariable(kind: LlmKind, env: Env = process.env): string {
  const names = LLM_KINDS[kind].keyVariables;
  return names.find((name) => env[name]) ?? names[0]!;
}

/**
 * Checks that a target gives its credentials: `api_key`, or every setting of the kind's
 * alternative (Bedrock's AWS access keys, Vertex's project and location). A missing key's hint
 * names the variable that usually holds it; alternative settings that `api_key` overrides are a
 * warning.
 */
export function credentialIssues(kind: LlmKind, settings: Record<string, unknown>): Issue[] {
  const alternative = LLM_KINDS[kind].credentials;
  const given = alternative?.keys.filter(({ key }) => isGiven(settings[key])) ?? [];
  const names = (keys: readonly { key: string }[]) => keys.map(({ key }) => key).join(', ');
  if (isGiven(settings.api_key)) {
    if (alternative === undefined || given.length === 0) return [];
    return [
      {
        severity: 'warning',
        path: [given[0]!.key],
        message: `${names(given)} not used: api_key is given and takes precedence`,
        hint: `remove api_key to use ${alternative.label}, or remove ${names(given)}`,
      },
    ];
  }
  if (alternative !== undefined && given.length === alternative.keys.length) return [];
  if (alternative !== undefined && given.length > 0) {
    return alternative.keys
      .filter((setting) => !given.includes(setting))
      .map(({ key, example }) => ({
        severity: 'error',
        path: [key],
        message: `is required with ${names(given)}`,
        hint: `add \`${key}: ${example}\` (${alternative.label})`,
      }));
  }
  const variable = likelyKeyVariable(kind);
  const keyHint = `add \`api_key: \${{ ${variable} }}\` and set ${variable} in .env`;
  const alternativeHint =
    alternative &&
    `, or use ${alternative.label}: ${alternative.keys.map(({ key, example }) => `\`${key}: ${example}\``).join(' and ')}`;
  return [
    {
      severity: 'error',
      path: ['api_key'],
      message: 'is required',
      hint: keyHint + (alternativeHint ?? ''),
    },
  ];
}

/**
 * What to check when the provider refuses a call (401/403) of a target that signs in with its
 * kind's alternative credentials rather than `api_key`; undefined for `api_key` targets.
 */
export function refusedCredentialsHint(
  kind: LlmKind,
  apiKey: string | undefined,
  targetName: string,
): string | undefined {
  const { credentials, label } = LLM_KINDS[kind];
  if (apiKey !== undefined || credentials === undefined) return undefined;
  return `check ${credentials.check}: ${label} refused the credentials of target "${targetName}"`;
}

/**
 * The error of a Vertex call that could not start because Google's libraries found no
 * application default credentials: not retryable (a retry finds none either), with the ways to
 * sign in. Undefined for every other error.
 */
export function missingCredentialsError(
  error: unknown,
  kind: LlmKind,
  targetName: string,
): ProviderError | undefined {
  const message = error instanceof Error ? error.message : '';
  if (kind !== 'vertex' || !message.startsWith('Could not load the default credentials')) {
    return undefined;
  }
  return new ProviderError(
    `vertex target "${targetName}": no Google application default credentials were found`,
    {
      retryable: false,
      hint: "run `gcloud auth application-default login` or set GOOGLE_APPLICATION_CREDENTIALS to a key file in the shell (Google's libraries do not read .env), or give the target `api_key:` for Vertex express mode",
    },
  );
}
