/**
 * Who a failed or errored case's failure is on: `agent` (it crashed, answered badly or
 * failed its graders), `infra` (could not spawn, network, HTTP 5xx/429, container engine,
 * disk full, a workspace that could not be made), `timeout` (a call ran out of time),
 * `budget` (the case crossed its `max_cost_usd`, `max_tokens` or `max_duration_seconds`),
 * `grader` (a grader could not grade).
 */
export type FailureClass = 'agent' | 'infra' | 'timeout' | 'budget' | 'grader';

export const FAILURE_CLASSES: readonly FailureClass[] = [
  'agent',
  'infra',
  'timeout',
  'budget',
  'grader',
];

// System errors that say the machine, the network or a service is at fault, not the agent.
const INFRA_CODES = new Set([
  'ENOSPC',
  'EDQUOT',
  'EMFILE',
  'ENFILE',
  'ENOMEM',
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * The class of an error a provider call ended with: the class the provider gave it
 * (`ProviderError.failureClass`), else one read from an HTTP status (5xx, 429, 408:
 * `infra`) or a system error code anywhere in its causes (a spawn that failed, a refused
 * connection, a full disk: `infra`; `ETIMEDOUT`: `timeout`), else `agent`.
 */
export function classifyFailure(error: unknown): FailureClass {
  // Read without importing ProviderError, which names this file's type.
  const given = (error as { failureClass?: unknown } | null)?.failureClass;
  if (typeof given === 'string' && (FAILURE_CLASSES as readonly string[]).includes(given)) {
    return given as FailureClass;
  }
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== null && typeof current === 'object'; depth++) {
    const record = current as {
      code?: unknown;
      syscall?: unknown;
      details?: { status?: unknown };
      cause?: unknown;
    };
    const status = record.details?.status;
    if (typeof status === 'number' && (status >= 500 || status === 429 || status === 408)) {
      return 'infra';
    }
    if (typeof record.code === 'string') {
      if (record.code === 'ETIMEDOUT') return 'timeout';
      if (INFRA_CODES.has(record.code)) return 'infra';
      // A program that could not be started: ENOENT or EACCES from spawn itself.
      if (typeof record.syscall === 'string' && record.syscall.startsWith('spawn')) return 'infra';
    }
    current = record.cause;
  }
  return 'agent';
}
