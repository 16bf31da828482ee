// The process that exports a run as OpenTelemetry traces for `agentv eval --otel-file /
// --otel-endpoint` (see otel-export.ts): stdin holds the exporter's options on the first line,
// then one finished case per line; at EOF it sends what is left and prints its report as JSON.
// Out of AgentV's process so that the OTLP encoder and the HTTP client do not grow the memory
// every agent spawn forks.
import { createInterface } from 'node:readline';
import type { EvaluationResult } from '@agentv/core';
import { createRunExporter, type RunExporter } from '@agentv/otel';

let exporter: RunExporter | undefined;
for await (const line of createInterface({
  input: process.stdin,
  crlfDelay: Number.POSITIVE_INFINITY,
})) {
  if (line === '') continue;
  if (exporter === undefined) exporter = createRunExporter(JSON.parse(line));
  else exporter.add(JSON.parse(line) as EvaluationResult);
}
const report = (await exporter?.close()) ?? { cases: 0, failures: [] };
process.stdout.write(`${JSON.stringify(report)}\n`);
