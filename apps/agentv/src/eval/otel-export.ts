import type { EvaluationResult } from '@agentv/core';
import { interpolateEnv, UsageError } from '@agentv/core/internal';
import type { RunExporter } from '@agentv/otel';

/** `--otel-file`, `--otel-endpoint` and `--otel-header` as given. */
export interface OtelExportFlags {
  file?: string;
  endpoint?: string;
  headers: readonly string[];
}

/** A run's OTLP export: `add` each result as it is saved, `finish` once the run ended. */
export interface OtelExport {
  add(result: EvaluationResult): void;
  /** Waits for the last batches; returns one warning line per destination that lost cases. */
  finish(): Promise<string[]>;
}

/**
 * The export the flags ask for, or undefined without `--otel-file` / `--otel-endpoint`.
 * Header values may name variables as `${{ VAR }}` (read from the environment and `.env`),
 * so a token never has to be written on the command line.
 */
export async function openOtelExport(
  flags: OtelExportFlags,
  env: Readonly<Record<string, string | undefined>>,
  resource: Record<string, string>,
  version: string,
): Promise<OtelExport | undefined> {
  if (flags.file === undefined && flags.endpoint === undefined) {
    if (flags.headers.length > 0) {
      throw new UsageError('--otel-header is given without --otel-endpoint', {
        hint: 'add --otel-endpoint URL (an OTLP/HTTP collector), or leave --otel-header out',
      });
    }
    return undefined;
  }
  if (flags.endpoint !== undefined) checkEndpoint(flags.endpoint);
  const headers = parseHeaders(flags.headers, env);
  const { createRunExporter, tracesUrl } = await import('@agentv/otel');
  const exporter: RunExporter = createRunExporter({
    ...(flags.file === undefined ? {} : { file: flags.file }),
    ...(flags.endpoint === undefined ? {} : { endpoint: flags.endpoint }),
    headers,
    resource,
    version,
  });
  return {
    add: (result) => exporter.add(result),
    async finish() {
      const report = await exporter.close();
      return report.failures.map(
        (failure) =>
          `OpenTelemetry export: ${failure.cases} of ${report.cases} cases were not ${
            failure.target === 'file'
              ? `written to ${flags.file}`
              : `sent to ${safeUrl(tracesUrl(flags.endpoint!))}`
          } (${failure.reason}); the run's results are not affected`,
      );
    },
  };
}

function checkEndpoint(endpoint: string): void {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new UsageError(`--otel-endpoint ${endpoint} is not a URL`, {
      hint: 'give the OTLP/HTTP endpoint, e.g. --otel-endpoint http://localhost:4318',
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--otel-endpoint must be an http or https URL, not ${url.protocol}`, {
      hint: "OTLP over gRPC is not supported; use the collector's OTLP/HTTP port, e.g. http://localhost:4318",
    });
  }
}

function parseHeaders(
  raw: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const entry of raw) {
    const split = entry.indexOf('=');
    const name = split > 0 ? entry.slice(0, split).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new UsageError(
        `--otel-header ${JSON.stringify(entry.slice(0, 40))} is not NAME=VALUE`,
        {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder syntax users write
          hint: 'write e.g. --otel-header "Authorization=Bearer ${{ OTEL_TOKEN }}"',
        },
      );
    }
    const { value, missing } = interpolateEnv(entry.slice(split + 1), { ...env });
    if (missing.length > 0) {
      throw new UsageError(`--otel-header ${name} names ${missing.join(', ')}, which is not set`, {
        hint: `set ${missing[0]} in the environment or in .env`,
      });
    }
    headers[name] = value;
  }
  return headers;
}

/** The endpoint without credentials or query, for messages. */
function safeUrl(endpoint: string): string {
  const url = new URL(endpoint);
  return `${url.protocol}//${url.host}${url.pathname}`;
}
