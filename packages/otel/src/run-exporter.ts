import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import path from 'node:path';
import type { EvaluationResult } from '@agentv/core';
import { caseSpans, type OtlpJsonSpan } from './case-spans.js';
import { encodeProtobuf, traceRequest } from './otlp-encode.js';

export interface RunExporterOptions {
  /** `--otel-file`: OTLP/JSON written as JSON Lines, one `ExportTraceServiceRequest` per batch. */
  file?: string;
  /** `--otel-endpoint`: an OTLP/HTTP endpoint; a URL without a path gets `/v1/traces`. */
  endpoint?: string;
  /** Headers sent to the endpoint (credentials: never logged). */
  headers?: Record<string, string>;
  /** Resource attributes besides `service.name` (`agentv.run_id`). */
  resource?: Record<string, string>;
  /** AgentV's version, the instrumentation scope's. */
  version?: string;
  /** Cases per batch (default 64); a batch also goes once it is `flushMs` old (default 1000). */
  batchCases?: number;
  flushMs?: number;
  /** Tries of one batch against the endpoint (default 3), waiting `retryDelayMs` × 4ⁿ between them. */
  tries?: number;
  retryDelayMs?: number;
  /** Time limit of one request (default 10 s). */
  timeoutMs?: number;
}

/** What the export did, for the run's last lines. */
export interface ExportReport {
  cases: number;
  /** Cases that did not reach the endpoint or the file, with the last reason. */
  failures: { target: 'endpoint' | 'file'; cases: number; reason: string }[];
}

export interface RunExporter {
  /** Queues a finished case; never throws, never waits for the network. */
  add(result: EvaluationResult): void;
  /** Sends what is queued and waits for every batch; never rejects. */
  close(): Promise<ExportReport>;
}

/**
 * Exports a run as OTLP traces (one per case, see `caseSpans`) while it runs: finished
 * cases are batched and sent to the endpoint in OTLP/protobuf and appended to the file in
 * OTLP/JSON, one batch at a time. A batch the endpoint refuses for a reason that may pass
 * (network, 429, 502–504) is tried again; what still failed is in the report. Nothing here
 * fails the run.
 */
export function createRunExporter(options: RunExporterOptions): RunExporter {
  const batchCases = options.batchCases ?? 64;
  const flushMs = options.flushMs ?? 1000;
  const resource = Object.entries({ 'service.name': 'agentv', ...options.resource }).map(
    ([key, value]) => ({ key, value: { stringValue: value } }),
  );
  const url = options.endpoint === undefined ? undefined : new URL(tracesUrl(options.endpoint));
  // One connection kept for the run's batches (they go one at a time); ended by `close`.
  const agent =
    url === undefined
      ? undefined
      : new (url.protocol === 'https:' ? HttpsAgent : HttpAgent)({
          keepAlive: true,
          maxSockets: 1,
        });
  const report: ExportReport = { cases: 0, failures: [] };
  let spans: OtlpJsonSpan[] = [];
  let cases = 0;
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<void> =
    options.file === undefined ? Promise.resolve() : startFile(options.file);

  const fail = (target: 'endpoint' | 'file', count: number, reason: string) => {
    const known = report.failures.find((failure) => failure.target === target);
    if (known === undefined) report.failures.push({ target, cases: count, reason });
    else {
      known.cases += count;
      known.reason = reason;
    }
  };

  async function startFile(file: string): Promise<void> {
    try {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, '');
    } catch (error) {
      fail('file', 0, describe(error));
    }
  }

  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (cases === 0) return;
    const batch = traceRequest(spans, resource, options.version ?? '0.0.0');
    const count = cases;
    spans = [];
    cases = 0;
    chain = chain.then(() => send(batch, count));
  };

  async function send(batch: ReturnType<typeof traceRequest>, count: number): Promise<void> {
    if (options.file !== undefined) {
      try {
        await appendFile(options.file, `${JSON.stringify(batch)}\n`);
      } catch (error) {
        fail('file', count, describe(error));
      }
    }
    if (url === undefined) return;
    const body = encodeProtobuf(batch);
    const tries = options.tries ?? 3;
    let reason = '';
    for (let attempt = 1; attempt <= tries; attempt++) {
      try {
        const status = await post(
          url,
          agent!,
          options.headers ?? {},
          body,
          options.timeoutMs ?? 10_000,
        );
        if (status >= 200 && status < 300) return;
        reason = `HTTP ${status}`;
        if (![408, 429, 502, 503, 504].includes(status)) break;
      } catch (error) {
        reason = describe(error);
      }
      if (attempt < tries) await delay((options.retryDelayMs ?? 250) * 4 ** (attempt - 1));
    }
    fail('endpoint', count, reason);
  }

  return {
    add(result) {
      report.cases++;
      spans.push(...caseSpans(result));
      cases++;
      if (cases >= batchCases) flush();
      else timer ??= setTimeout(flush, flushMs);
    },
    async close() {
      flush();
      await chain;
      agent?.destroy();
      return report;
    },
  };
}

/** The URL traces are posted to: as given, or `<origin>/v1/traces` for a URL without a path. */
export function tracesUrl(endpoint: string): string {
  const url = new URL(endpoint);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1/traces';
  return url.toString();
}

/**
 * POSTs `body` as OTLP/protobuf and resolves with the status once the response has been read;
 * rejects with the error's code (`ECONNREFUSED`) or `timed out after …`. Node's own client,
 * not `fetch`: loading and starting undici cost more than a run's batches.
 */
function post(
  url: URL,
  agent: HttpAgent,
  headers: Record<string, string>,
  body: Uint8Array,
  timeoutMs: number,
): Promise<number> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          ...headers,
          'content-type': 'application/x-protobuf',
          'content-length': String(body.byteLength),
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    // The whole request, answer included (a socket timeout would only bound each silence).
    const deadline = setTimeout(
      () => request.destroy(new Error(`timed out after ${timeoutMs / 1000}s`)),
      timeoutMs,
    );
    request.on('close', () => clearTimeout(deadline));
    request.on('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === undefined ? error : new Error(error.code)),
    );
    request.end(body);
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
