import {
  createSecretMask,
  networkFailure,
  ProviderError,
  parseRetryAfterMs,
} from '@agentv/core/provider-utils';
import { LLM_KINDS, type LlmKind } from './llm-kinds.js';

const API_CALL_ERROR = Symbol.for('vercel.ai.error.AI_APICallError');
const RETRY_ERROR = Symbol.for('vercel.ai.error.AI_RetryError');
const MAX_MESSAGE = 300;

/** What the error mapping needs to know about the call that failed. */
export interface FailedCall {
  kind: LlmKind;
  targetName: string;
  model: string;
  /** Where the call went, for "could not reach" messages. */
  baseUrl?: string;
  /** The variable that holds the key, named in 401/403 hints. */
  keyVariable: string;
  /** The 401/403 hint of a target that signs in without `api_key` (Bedrock's access keys, Vertex's project). */
  authHint?: string;
  /** Values to mask in every message: the API key and the target's `${{ VAR }}` values. */
  secrets: readonly string[];
}

/** The SDK's HTTP failure, as far as we read it (duck-typed so the SDK need not be loaded). */
interface ApiCallError extends Error {
  statusCode?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
}

/**
 * Turns an error of the AI SDK into a `ProviderError`: 429, 5xx and network
 * errors are retryable (429 with `retryAfterMs` from the response headers),
 * a connection that broke while the answer was read included (core's
 * `networkFailure`, which the SDK wraps as an HTTP 200 it could not process);
 * 400/401/403/404 and other 4xx are not, and carry the provider's own message
 * and a hint. Secrets are masked in the message.
 */
export function toProviderError(error: unknown, call: FailedCall): ProviderError {
  const cause = unwrapRetryError(error);
  const prefix = `${call.kind} target "${call.targetName}"`;
  const clean = (text: string) => oneLine(mask(text, call.secrets));
  if (!isApiCallError(cause)) {
    const message = cause instanceof Error ? cause.message : String(cause);
    return new ProviderError(`${prefix}: ${clean(message)}`, { retryable: true });
  }
  const status = cause.statusCode;
  const reason = clean(providerMessage(cause));
  if (status === undefined) {
    const where = call.baseUrl ? ` at ${hostOf(call.baseUrl)}` : '';
    return new ProviderError(`${prefix}: could not reach the API${where}: ${reason}`, {
      retryable: true,
      failureClass: 'infra',
      hint: call.baseUrl ? `check that the server at ${call.baseUrl} is running` : undefined,
    });
  }
  const details = { status };
  // The connection broke after the status line, while the answer was read: the SDK calls it an
  // HTTP 200 it failed to process, but another attempt may well succeed.
  const broken = networkFailure(cause);
  if (broken !== undefined) {
    const where = call.baseUrl ? ` at ${hostOf(call.baseUrl)}` : '';
    return new ProviderError(
      `${prefix}: the connection to the API${where} broke while the answer was read: ${clean(broken)}`,
      {
        retryable: true,
        failureClass: 'infra',
        details,
        hint: `check the network between AgentV and ${call.baseUrl ?? `the ${LLM_KINDS[call.kind].label} API`} (a proxy or load balancer may cut long answers)`,
      },
    );
  }
  const message = `${prefix}: HTTP ${status}: ${reason}`;
  if (status === 429 || status === 408 || status >= 500) {
    const retryAfterMs = parseRetryAfterMs(cause.responseHeaders);
    return new ProviderError(message, {
      retryable: true,
      details,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
  return new ProviderError(message, { retryable: false, details, hint: hintFor(status, call) });
}

function hintFor(status: number, call: FailedCall): string {
  const label = LLM_KINDS[call.kind].label;
  if (status >= 200 && status < 300) {
    return `the answer was not one the ${label} API gives: check ${call.baseUrl ? `base_url ${call.baseUrl}` : 'the provider'} of target "${call.targetName}"`;
  }
  if (status === 401 || status === 403) {
    return (
      call.authHint ??
      `check ${call.keyVariable}: ${label} refused the api_key of target "${call.targetName}"`
    );
  }
  if (status === 404) {
    return call.kind === 'azure'
      ? `check the deployment name "${call.model}", the endpoint and api_version of target "${call.targetName}"`
      : `check the model name "${call.model}"${call.baseUrl ? ` and base_url ${call.baseUrl}` : ''} of target "${call.targetName}"`;
  }
  return `check the settings of target "${call.targetName}" (model, temperature, max_output_tokens)`;
}

/** The provider's own error text from the JSON body (`{error: {message}}` and variants), else the SDK's. */
function providerMessage(error: ApiCallError): string {
  const body = error.responseBody;
  if (body) {
    try {
      const parsed: unknown = JSON.parse(body);
      const found = findMessage(parsed);
      if (found) return found;
    } catch {
      // Not JSON: the SDK's message below says what happened.
    }
  }
  return error.message;
}

function findMessage(value: unknown): string | undefined {
  if (Array.isArray(value)) return findMessage(value[0]);
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.error === 'string') return record.error;
  if (typeof record.error === 'object') return findMessage(record.error);
  return typeof record.message === 'string' ? record.message : undefined;
}

function unwrapRetryError(error: unknown): unknown {
  if (typeof error === 'object' && error !== null && RETRY_ERROR in error) {
    return (error as { lastError?: unknown }).lastError ?? error;
  }
  return error;
}

function isApiCallError(error: unknown): error is ApiCallError {
  return error instanceof Error && API_CALL_ERROR in error;
}

/** Replaces every secret value (and the provider-shortened forms such as `sk-ab...yz`) with `***`. */
export function mask(text: string, secrets: readonly string[]): string {
  let masked = createSecretMask(secrets)?.text(text) ?? text;
  for (const secret of secrets) {
    // OpenAI echoes a refused key as its first and last characters around stars.
    if (secret.length >= 12) {
      const pattern = new RegExp(
        `${escapeRegExp(secret.slice(0, 3))}[*.]{3,}${escapeRegExp(secret.slice(-4))}`,
        'g',
      );
      masked = masked.replace(pattern, '***');
    }
  }
  return masked;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE - 3)}...` : line;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
