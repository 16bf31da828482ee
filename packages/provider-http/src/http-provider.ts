import type { Issue } from '@agentv/core';
import {
  callLabel,
  callTimeout,
  DEFAULT_MAX_OUTPUT_BYTES,
  describeFetchError,
  fetchWithBodyLimit,
  formatBytes,
  isProviderError,
  outputLimitError,
  PROVIDER_SPECIFICATION_VERSION,
  type Provider,
  type ProviderContext,
  ProviderError,
  type ProviderFactory,
  type ProviderOptions,
  type ProviderRequest,
  type ProviderResponse,
  parseOutputMessages,
  parseTokenUsage,
  parseTraceEvents,
  providerOptions,
  type ResolvedTarget,
  runHttpHealthcheck,
} from '@agentv/core/provider-utils';
import { placeholderValues, renderBody } from './body-template.js';
import { statusError } from './http-errors.js';
import {
  HTTP_SETTINGS_KEYS,
  type HttpProviderSettings,
  parseHttpSettings,
  validateHttpSettings,
} from './http-settings.js';
import { lookupPath } from './json-path.js';
import { createRedactor, excerpt, type Redactor } from './redact.js';

/** What `createHttpProvider` needs besides the settings. */
export interface HttpProviderOptions extends ProviderOptions {}

/**
 * Creates a provider that answers each case with one HTTP request: `body`
 * with its placeholders replaced, sent as JSON to `url`; the answer (and
 * optionally trace, output messages and token usage) read from the JSON
 * response by dot paths.
 *
 * `invoke` throws `ProviderError`: retryable for 429 (with `retryAfterMs` from
 * `Retry-After`), 408, 5xx, network errors and timeouts; not retryable for other
 * statuses, a response that is not JSON, a path that matches nothing, or a body
 * longer than `max_output_bytes` (the connection is closed once it passes it).
 * Header values and `${{ VAR }}` values are masked as `***` in logs and errors.
 */
export function createHttpProvider(
  settings: HttpProviderSettings,
  options: HttpProviderOptions,
): Provider {
  const { targetName } = options;
  const log = options.log ?? ((line: string) => console.error(line));
  const redact = createRedactor([
    ...Object.values(settings.headers),
    ...(options.secretValues ?? []),
  ]);
  // --agent-timeout wins over timeout_seconds (core's one rule for every provider).
  const timeoutLimit = callTimeout(settings.timeoutSeconds, options);
  const timeoutSeconds = timeoutLimit.seconds;
  const prefix = `[http:${targetName}]`;
  const subject = `http target "${targetName}": ${settings.method} ${redact(settings.url)}`;
  const headers = requestHeaders(settings);
  const maxBytes = settings.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  // Bodies are read up to max_output_bytes; past it the connection is closed.
  const limitedFetch = fetchWithBodyLimit(maxBytes, (bytes) =>
    outputLimitError(
      `${subject}: the response body passed max_output_bytes (${formatBytes(maxBytes)}) after ${formatBytes(bytes)}; the request was aborted`,
    ),
  );

  const invoke = async (request: ProviderRequest): Promise<ProviderResponse> => {
    if (request.signal?.aborted) {
      throw new ProviderError('the request was not sent: the run was interrupted', {
        retryable: false,
      });
    }
    const body =
      settings.body === undefined
        ? undefined
        : JSON.stringify(renderBody(settings.body, placeholderValues(request)));
    // With several workers lines interleave: every line names its case and attempt.
    const tag = `${prefix} ${callLabel(request)}`;
    if (options.verbose) {
      log(`${tag}: ${settings.method} ${redact(settings.url)}`);
      const shown = Object.keys(headers).map((name) => `${name}: ***`);
      if (shown.length > 0) log(`${tag} headers: ${shown.join(', ')}`);
    }
    const timeout =
      timeoutSeconds === undefined ? undefined : AbortSignal.timeout(timeoutSeconds * 1000);
    const signals = [request.signal, timeout].filter((signal) => signal !== undefined);
    const started = Date.now();
    let status: number;
    let responseHeaders: Record<string, string>;
    let content: string;
    try {
      const response = await limitedFetch(settings.url, {
        method: settings.method,
        headers:
          request.traceContext === undefined
            ? headers
            : { ...headers, traceparent: request.traceContext.traceparent },
        ...(body === undefined ? {} : { body }),
        ...(signals.length > 0 ? { signal: AbortSignal.any(signals) } : {}),
      });
      status = response.status;
      responseHeaders = Object.fromEntries(response.headers);
      content = await response.text();
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      // The body passed max_output_bytes (core's outputLimitError).
      if (isProviderError(error)) throw error;
      if (timeout?.aborted) {
        throw new ProviderError(`${subject}: no answer within ${timeoutSeconds} s`, {
          retryable: true,
          failureClass: 'timeout',
          hint: timeoutLimit.hint,
        });
      }
      const reason = describeFetchError(error);
      if (reason === 'bad port') {
        throw new ProviderError(`${subject} failed: fetch refuses the port of this URL`, {
          retryable: false,
          hint: 'run the agent on another port: fetch blocks ports reserved for other protocols (e.g. 9, 25, 6000)',
        });
      }
      throw new ProviderError(`${subject} failed: ${redact(reason)}`, {
        retryable: true,
        failureClass: 'infra',
        cause: error,
        hint: `check that the server at ${redact(new URL(settings.url).origin)} is running`,
      });
    }
    const wallTimeMs = Date.now() - started;
    if (options.verbose) log(`${tag} HTTP ${status} after ${wallTimeMs} ms`);
    if (status < 200 || status > 299) {
      throw statusError(subject, status, responseHeaders, excerpt(redact(content)));
    }
    const raw = { method: settings.method, url: redact(settings.url), status, wallTimeMs };
    return { ...readResponse(content, settings, subject, redact), durationMs: wallTimeMs, raw };
  };

  const provider: Provider = {
    specificationVersion: PROVIDER_SPECIFICATION_VERSION,
    id: `http:${targetName}`,
    kind: 'http',
    targetName,
    invoke,
  };
  const healthcheck = settings.healthcheck;
  if (healthcheck === undefined) return provider;
  return {
    ...provider,
    healthcheck: () => runHttpHealthcheck({ ...healthcheck, headers: settings.headers }, redact),
  };
}

/** The `http` provider factory, registered by the app under `provider: http`. */
export const httpProviderFactory: ProviderFactory = {
  kind: 'http',
  settingsKeys: HTTP_SETTINGS_KEYS,
  validate(target: ResolvedTarget): Issue[] {
    return validateHttpSettings(target);
  },
  create(target: ResolvedTarget, context: ProviderContext): Provider {
    return createHttpProvider(parseHttpSettings(target), providerOptions(target, context));
  },
};

/** The target's headers, plus JSON content negotiation unless the target sets its own. */
function requestHeaders(settings: HttpProviderSettings): Record<string, string> {
  const names = new Set(Object.keys(settings.headers).map((name) => name.toLowerCase()));
  return {
    ...(names.has('accept') ? {} : { accept: 'application/json' }),
    ...(settings.body === undefined || names.has('content-type')
      ? {}
      : { 'content-type': 'application/json' }),
    ...settings.headers,
  };
}

/** The answer and the optional parts of a 2xx response, read by the target's paths. */
function readResponse(
  content: string,
  settings: HttpProviderSettings,
  subject: string,
  redact: Redactor,
): ProviderResponse {
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    const shown =
      content.trim() === ''
        ? 'an empty body'
        : `a body that is not JSON: ${excerpt(redact(content))}`;
    throw new ProviderError(`${subject} answered with ${shown}`, {
      retryable: false,
      hint: 'check url: the http provider reads the answer from a JSON response',
    });
  }
  const find = (key: string, path: string): unknown => {
    const lookup = lookupPath(json, path);
    if (lookup.found) return lookup.value;
    throw new ProviderError(`${subject}: ${key} "${path}" matched nothing: ${lookup.reason}`, {
      retryable: false,
      hint: `fix ${key} to where the value is in the JSON response`,
    });
  };
  const wrongShape = (key: string, path: string, expected: string) =>
    new ProviderError(`${subject}: ${key} "${path}" is not ${expected}`, {
      retryable: false,
      hint: `fix ${key} to where the value is in the JSON response`,
    });

  const answer = find('response_path', settings.responsePath);
  const response: ProviderResponse = {
    text: typeof answer === 'string' ? answer : (JSON.stringify(answer) ?? ''),
  };
  if (settings.tracePath !== undefined) {
    const value = find('trace_path', settings.tracePath);
    if (value !== null) {
      const dropped: string[] = [];
      const trace = parseTraceEvents(value, dropped);
      if (trace === undefined)
        throw wrongShape('trace_path', settings.tracePath, 'a list of trace events');
      response.trace = trace;
      if (dropped.length > 0) response.warnings = dropped;
    }
  }
  if (settings.outputMessagesPath !== undefined) {
    const value = find('output_messages_path', settings.outputMessagesPath);
    if (value !== null) {
      const messages = parseOutputMessages(value);
      if (messages === undefined) {
        throw wrongShape('output_messages_path', settings.outputMessagesPath, 'a list of messages');
      }
      response.outputMessages = messages;
    }
  }
  if (settings.usagePath !== undefined) {
    const value = find('usage_path', settings.usagePath);
    if (value !== null) {
      const usage = parseTokenUsage(value);
      if (usage === undefined) {
        throw wrongShape(
          'usage_path',
          settings.usagePath,
          'a mapping of token counts such as { input_tokens: 12 }',
        );
      }
      response.usage = usage;
    }
  }
  return response;
}
