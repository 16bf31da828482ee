import type { Issue } from '../errors/input-issue.js';
import type { TraceEvent } from '../trace/trace-event.js';
import { sleep } from '../util/sleep.js';
import { PROVIDER_SPECIFICATION_VERSION, type Provider } from './provider.js';
import type { ProviderFactory } from './provider-factory.js';
import type { ProviderRequest } from './provider-request.js';
import type { ProviderResponse } from './provider-response.js';
import type { ResolvedTarget } from './resolved-target.js';

/** Settings of the `mock` provider. */
export interface MockProviderSettings {
  /** The answer to every case. Default: a fixed placeholder text. */
  response?: string;
  /** Trace events returned with every answer. */
  trace?: TraceEvent[];
  /** Milliseconds to wait before answering. */
  delayMs?: number;
}

export const DEFAULT_MOCK_RESPONSE = 'This is a mock response.';

/** Creates a provider that answers every case with a configured response. */
export function createMockProvider(
  targetName: string,
  settings: MockProviderSettings = {},
): Provider {
  const respond = async (request: ProviderRequest): Promise<ProviderResponse> => {
    const started = Date.now();
    if (settings.delayMs && settings.delayMs > 0) {
      await sleep(settings.delayMs, request.signal);
      if (request.signal?.aborted) throw request.signal.reason;
    }
    return {
      text: settings.response ?? DEFAULT_MOCK_RESPONSE,
      ...(settings.trace ? { trace: settings.trace } : {}),
      durationMs: Date.now() - started,
    };
  };
  return {
    specificationVersion: PROVIDER_SPECIFICATION_VERSION,
    id: `mock:${targetName}`,
    kind: 'mock',
    targetName,
    supportsBatch: true,
    invoke: respond,
    invokeBatch: (requests) => Promise.all(requests.map(respond)),
  };
}

/** The `mock` provider factory: `provider: mock` with `response`, `trace`, `delay_ms`. */
export const mockProviderFactory: ProviderFactory = {
  kind: 'mock',
  settingsKeys: ['response', 'trace', 'delay_ms'],
  canJudge: true,
  validate(target: ResolvedTarget): Issue[] {
    const issues: Issue[] = [];
    const { response, trace, delay_ms: delayMs } = target.settings;
    if (response !== undefined && typeof response !== 'string') {
      issues.push({ severity: 'error', path: ['response'], message: 'must be a string' });
    }
    if (trace !== undefined && !Array.isArray(trace)) {
      issues.push({
        severity: 'error',
        path: ['trace'],
        message: 'must be a list of trace events',
      });
    }
    if (delayMs !== undefined && (typeof delayMs !== 'number' || delayMs < 0)) {
      issues.push({
        severity: 'error',
        path: ['delay_ms'],
        message: 'must be a number of milliseconds >= 0',
      });
    }
    return issues;
  },
  create(target) {
    const { response, trace, delay_ms: delayMs } = target.settings;
    return createMockProvider(target.name, {
      response: response as string | undefined,
      trace: trace as TraceEvent[] | undefined,
      delayMs: delayMs as number | undefined,
    });
  },
};
