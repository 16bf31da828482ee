import { fileURLToPath } from 'node:url';
import type { EvaluationResult } from '@agentv/core';
import { interpolateEnv, UsageError } from '@agentv/core/internal';
import { startProcess } from '@agentv/core/provider-utils';
import type { ExportReport, RunExporterOptions } from '@agentv/otel';

/** `--otel-file`, `--otel-endpoint` and `--otel-header` as given. */
export interface OtelExportFlags {
  file?: string;
  endpoint?: string;
  headers: readonly string[];
}

/** A run's OTLP export, in a process of its own: `add` each result as it is saved, `finish` once the run ended. */
export interface OtelExport {
  add(result: EvaluationResult): void;
  /** Waits for the last batches; returns one warning line per destination that lost cases. */
  finish(): Promise<string[]>;
}

/** Beside this file in `dist/eval/`, and beside every chunk of the bundle. */
const EXPORT_PROCESS = new URL('./otel-export-process.js', import.meta.url);

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
  const options: RunExporterOptions = {
    ...(flags.file === undefined ? {} : { file: flags.file }),
    ...(flags.endpoint === undefined ? {} : { endpoint: flags.endpoint }),
    headers: parseHeaders(flags.headers, env),
    resource,
    version,
  };
  const child = await startProcess({
    command: [process.execPath, fileURLToPath(EXPORT_PROCESS)],
    cwd: process.cwd(),
    env: process.env,
    // After the last case it may still be sending (and retrying) batches.
    killGraceMs: 60_000,
  });
  let output = '';
  child.stdout.on('data', (chunk: string) => {
    output += chunk;
  });
  // Its report is its last write, which can be read after it has exited: read to the end.
  const outputRead = new Promise<void>((resolve) => {
    child.stdout.once('end', resolve);
    child.stdout.once('close', resolve);
  });
  child.stderr.resume();
  // The headers go through the pipe, never on a command line.
  child.stdin.write(`${JSON.stringify(options)}\n`);
  return {
    add: (result) => {
      if (!child.exited) child.stdin.write(`${JSON.stringify(exported(result))}\n`);
    },
    async finish() {
      const exit = await child.stop();
      await outputRead;
      let report: ExportReport;
      try {
        report = JSON.parse(output) as ExportReport;
      } catch {
        return [
          `OpenTelemetry export stopped (${exit.signalName ?? `exit code ${exit.exitCode}`}); some cases may not have been exported; the run's results are not affected`,
        ];
      }
      if (report.failures.length === 0) return [];
      const { tracesUrl } = await import('@agentv/otel');
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

/** What the export reads of a result: no answer text, no output messages. */
function exported(result: EvaluationResult): Partial<EvaluationResult> {
  return {
    timestamp: result.timestamp,
    evalId: result.evalId,
    dataset: result.dataset,
    target: result.target,
    score: result.score,
    passed: result.passed,
    attempts: result.attempts,
    durationMs: result.durationMs,
    costUsd: result.costUsd,
    error: result.error,
    usage: result.usage,
    trace: result.trace,
    evaluatorResults: result.evaluatorResults.map((grader) => ({
      name: grader.name,
      type: grader.type,
      score: grader.score,
      weight: grader.weight,
      verdict: grader.verdict,
      reasoning: grader.reasoning,
      error: grader.error,
      hits: [],
      misses: [],
    })),
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
