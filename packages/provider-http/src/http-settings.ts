import type { Issue } from '@agentv/core';
import {
  assertValidSettings,
  closestMatch,
  DEFAULT_HTTP_HEALTHCHECK_SECONDS,
  hasPlaceholder,
  isRecord,
  maxOutputBytes,
  type ResolvedTarget,
  snakeCaseSettings,
} from '@agentv/core/provider-utils';
import {
  BODY_PLACEHOLDERS,
  FILE_PLACEHOLDERS,
  findBodyPlaceholders,
  isBodyPlaceholder,
  STRUCTURED_PLACEHOLDERS,
} from './body-template.js';
import { pathProblem } from './json-path.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** An HTTP health check, run once before the first case. */
export interface HttpHealthcheck {
  url: string;
  /** Default GET. */
  method: HttpMethod;
  /** Statuses that pass; undefined means any 2xx. */
  expectStatus?: number[];
  /** Default 10. */
  timeoutSeconds: number;
}

/** The typed settings of a `provider: http` target. */
export interface HttpProviderSettings {
  url: string;
  method: HttpMethod;
  /** Sent with every call (and the health check); values are treated as secrets in logs and errors. */
  headers: Record<string, string>;
  /** The body template (a mapping or list), sent as JSON with placeholders replaced; none when undefined. */
  body?: unknown;
  /** Dot path of the answer in the JSON response. */
  responsePath: string;
  tracePath?: string;
  outputMessagesPath?: string;
  usagePath?: string;
  /** Per-call time limit (the target's `timeout_seconds`; `--agent-timeout` wins over it); undefined: none. */
  timeoutSeconds?: number;
  /** Most bytes of a response body (the target's `max_output_bytes`). Default core's `DEFAULT_MAX_OUTPUT_BYTES`. */
  maxOutputBytes?: number;
  healthcheck?: HttpHealthcheck;
}

/** The keys of an `http` target besides those every target shares, for unknown-key warnings. */
export const HTTP_SETTINGS_KEYS = [
  'url',
  'method',
  'headers',
  'body',
  'response_path',
  'trace_path',
  'output_messages_path',
  'usage_path',
  'healthcheck',
] as const;

const PATH_KEYS = ['response_path', 'trace_path', 'output_messages_path', 'usage_path'] as const;
const HEALTHCHECK_KEYS = ['url', 'method', 'expect_status', 'timeout_seconds'];

// RFC 9110 token characters.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const HINTS = {
  url: 'set url to the endpoint that answers, e.g. url: http://127.0.0.1:8080/chat',
  method: `use one of ${HTTP_METHODS.join(', ')} (default POST)`,
  // biome-ignore lint/suspicious/noTemplateCurlyInString: ${{ VAR }} is targets-file syntax
  headers: 'write headers as a mapping, e.g. headers: { Authorization: "Bearer ${{ API_KEY }}" }',
  body: 'write body as a mapping, e.g. body: { question: "{PROMPT}", case: "{EVAL_ID}" }',
  path: 'write a dot path into the JSON response, e.g. data.answer or choices.0.message.content',
  healthcheck: 'e.g. healthcheck: { url: "http://127.0.0.1:8080/health", expect_status: 200 }',
} as const;

/**
 * Checks an `http` target's settings without sending anything and returns
 * every problem: the URL (parses, http or https), the method, headers, the
 * body's placeholders (an unknown one gets a did-you-mean), the paths, and the
 * health check. Values whose `${{ VAR }}` is unset are left to core.
 */
export function validateHttpSettings(target: ResolvedTarget): Issue[] {
  const settings = target.settings;
  const issues: Issue[] = [];
  const error = (path: (string | number)[], message: string, hint?: string) =>
    issues.push({ severity: 'error', path, message, ...(hint ? { hint } : {}) });

  const urlProblem = checkUrl(settings.url);
  if (urlProblem) error(['url'], urlProblem, urlHint(urlProblem, HINTS.url));

  const method = methodOf(settings.method);
  if (settings.method !== undefined && method === undefined) {
    error(['method'], `unknown method ${JSON.stringify(settings.method)}`, HINTS.method);
  }

  if (settings.headers !== undefined) {
    if (!isRecord(settings.headers)) error(['headers'], 'must be a mapping', HINTS.headers);
    else {
      for (const [name, value] of Object.entries(settings.headers)) {
        if (!HEADER_NAME.test(name)) {
          error(['headers', name], 'is not a valid header name', HINTS.headers);
        } else if (!['string', 'number', 'boolean'].includes(typeof value)) {
          error(['headers', name], 'must be a string (numbers and booleans are converted)');
        } else if (typeof value === 'string' && /[\r\n]/.test(value)) {
          error(['headers', name], 'must be one line');
        }
      }
    }
  }

  if (settings.body !== undefined) {
    if (!isRecord(settings.body) && !Array.isArray(settings.body)) {
      error(['body'], 'must be a mapping or a list (it is sent as JSON)', HINTS.body);
    } else {
      issues.push(...bodyIssues(settings.body));
      if (method === 'GET') {
        error(['body'], 'a GET request has no body', 'remove body, or set method: POST');
      }
    }
  }

  if (settings.response_path === undefined) {
    error(
      ['response_path'],
      'is required; it says where the answer is in the JSON response',
      HINTS.path,
    );
  }
  for (const key of PATH_KEYS) {
    const value = settings[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') error([key], 'must be a string', HINTS.path);
    else {
      const problem = pathProblem(value);
      if (problem) error([key], problem, HINTS.path);
    }
  }

  if (settings.healthcheck !== undefined) issues.push(...healthcheckIssues(settings.healthcheck));
  return issues;
}

/**
 * Converts a validated `http` target into typed settings. Throws core's located
 * `InvalidInputError` (`assertValidSettings`) when the settings do not pass
 * `validateHttpSettings`.
 */
export function parseHttpSettings(target: ResolvedTarget): HttpProviderSettings {
  assertValidSettings(target, validateHttpSettings(target));
  const settings = target.settings;
  const headers = Object.fromEntries(
    Object.entries(isRecord(settings.headers) ? settings.headers : {}).map(([name, value]) => [
      name,
      String(value),
    ]),
  );
  const optionalPath = (key: (typeof PATH_KEYS)[number]) =>
    typeof settings[key] === 'string' ? (settings[key] as string) : undefined;
  const tracePath = optionalPath('trace_path');
  const outputMessagesPath = optionalPath('output_messages_path');
  const usagePath = optionalPath('usage_path');
  const healthcheck = parseHealthcheck(settings.healthcheck);
  return {
    url: settings.url as string,
    method: methodOf(settings.method) ?? 'POST',
    headers,
    ...(settings.body === undefined ? {} : { body: settings.body }),
    responsePath: settings.response_path as string,
    ...(tracePath === undefined ? {} : { tracePath }),
    ...(outputMessagesPath === undefined ? {} : { outputMessagesPath }),
    ...(usagePath === undefined ? {} : { usagePath }),
    ...(target.timeoutSeconds === undefined ? {} : { timeoutSeconds: target.timeoutSeconds }),
    maxOutputBytes: maxOutputBytes(target),
    ...(healthcheck === undefined ? {} : { healthcheck }),
  };
}

function methodOf(value: unknown): HttpMethod | undefined {
  if (value === undefined) return 'POST';
  if (typeof value !== 'string') return undefined;
  const upper = value.trim().toUpperCase();
  return (HTTP_METHODS as readonly string[]).includes(upper) ? (upper as HttpMethod) : undefined;
}

/** Why `value` is not a usable http(s) URL; undefined when it is, or when its `${{ VAR }}` is unset. */
function checkUrl(value: unknown, required = true): string | undefined {
  if (value === undefined) return required ? 'is required' : undefined;
  if (typeof value !== 'string') return 'must be a string';
  if (hasPlaceholder(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${JSON.stringify(value)} is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `must be an http:// or https:// URL, not ${url.protocol}`;
  }
  // fetch refuses such a URL at request time; the message never repeats the secret.
  if (url.username !== '' || url.password !== '') {
    return 'holds a user name or password (user:pass@host), which a request cannot send in its URL';
  }
  return undefined;
}

const CREDENTIALS_HINT =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: ${{ VAR }} is targets-file syntax
  'remove them from the URL and send them in a header, e.g. headers: { Authorization: "Basic ${{ API_BASIC_AUTH }}" } with API_BASIC_AUTH the base64 of user:pass, set in .env';

/** The hint for a URL problem from `checkUrl`. */
function urlHint(problem: string, fallback: string): string {
  return problem.startsWith('holds a user name') ? CREDENTIALS_HINT : fallback;
}

function bodyIssues(body: unknown): Issue[] {
  const issues: Issue[] = [];
  for (const { name, path, whole } of findBodyPlaceholders(body)) {
    const at = ['body', ...path];
    if ((FILE_PLACEHOLDERS as readonly string[]).includes(name)) {
      issues.push({
        severity: 'error',
        path: at,
        message: `{${name}} names a file, which an HTTP body does not have`,
        hint:
          name === 'PROMPT_FILE'
            ? 'use {PROMPT} for the prompt text'
            : name === 'INPUT_FILE'
              ? 'use {INPUT} for the whole request as a JSON object'
              : 'the answer is read from the response with response_path',
      });
      continue;
    }
    if (!isBodyPlaceholder(name)) {
      const suggestion = closestMatch(name, BODY_PLACEHOLDERS);
      issues.push({
        severity: 'error',
        path: at,
        message: `unknown placeholder {${name}}${suggestion ? `; did you mean {${suggestion}}?` : ''}`,
        hint: `the supported placeholders are ${BODY_PLACEHOLDERS.map((known) => `{${known}}`).join(', ')}; write {{${name}}} for a literal {${name}}`,
      });
      continue;
    }
    if (!whole && STRUCTURED_PLACEHOLDERS.includes(name)) {
      issues.push({
        severity: 'error',
        path: at,
        message: `{${name}} is a JSON ${name === 'INPUT' ? 'object' : 'array'}, so it must be the whole value, not part of a text`,
        hint: `write the value as exactly "{${name}}"`,
      });
    }
  }
  return issues;
}

function healthcheckIssues(value: unknown): Issue[] {
  if (!isRecord(value)) {
    return [
      {
        severity: 'error',
        path: ['healthcheck'],
        message: 'must be a mapping',
        hint: HINTS.healthcheck,
      },
    ];
  }
  const { value: healthcheck, issues } = snakeCaseSettings(value, ['healthcheck']);
  const error = (key: string, message: string, hint: string = HINTS.healthcheck) =>
    issues.push({ severity: 'error', path: ['healthcheck', key], message, hint });
  for (const key of Object.keys(healthcheck)) {
    if (HEALTHCHECK_KEYS.includes(key)) continue;
    const suggestion = closestMatch(key, HEALTHCHECK_KEYS);
    issues.push({
      severity: 'warning',
      path: ['healthcheck', key],
      message: `unknown key${suggestion ? `; did you mean "${suggestion}"?` : ''}`,
      hint: `a health check has ${HEALTHCHECK_KEYS.join(', ')}`,
    });
  }
  const urlProblem = checkUrl(healthcheck.url);
  if (urlProblem) error('url', urlProblem, urlHint(urlProblem, HINTS.healthcheck));
  if (healthcheck.method !== undefined) {
    const method = methodOf(healthcheck.method);
    if (method === undefined) {
      error('method', `unknown method ${JSON.stringify(healthcheck.method)}`, HINTS.method);
    }
  }
  if (healthcheck.expect_status !== undefined) {
    const statuses = Array.isArray(healthcheck.expect_status)
      ? healthcheck.expect_status
      : [healthcheck.expect_status];
    const valid = (status: unknown) =>
      Number.isInteger(status) && (status as number) >= 100 && (status as number) <= 599;
    if (statuses.length === 0 || !statuses.every(valid)) {
      error('expect_status', 'must be an HTTP status (100-599) or a list of them');
    }
  }
  const seconds = healthcheck.timeout_seconds;
  if (seconds !== undefined && !(typeof seconds === 'number' && seconds > 0)) {
    error('timeout_seconds', 'must be a number of seconds greater than 0');
  }
  return issues;
}

function parseHealthcheck(value: unknown): HttpHealthcheck | undefined {
  if (!isRecord(value)) return undefined;
  const healthcheck = snakeCaseSettings(value).value;
  const expect = healthcheck.expect_status;
  return {
    url: healthcheck.url as string,
    method: healthcheck.method === undefined ? 'GET' : (methodOf(healthcheck.method) ?? 'GET'),
    ...(expect === undefined
      ? {}
      : { expectStatus: (Array.isArray(expect) ? expect : [expect]) as number[] }),
    timeoutSeconds:
      typeof healthcheck.timeout_seconds === 'number'
        ? healthcheck.timeout_seconds
        : DEFAULT_HTTP_HEALTHCHECK_SECONDS,
  };
}
