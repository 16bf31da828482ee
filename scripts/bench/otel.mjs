// Budget: the OTLP receiver takes at least 20,000 spans/s (AI SDK spans, OTLP/protobuf and
// OTLP/JSON, 500 spans per request, posted by a process of their own over two connections, each
// answered, decoded and mapped to trace events); the default grace period adds at most
// 100 ms to a call; exporting a 1,000-case run (--otel-file, and --otel-endpoint to a local
// collector) adds at most 5% to its wall time (trivial shell agent with a two-event trace, 4
// workers). Medians of interleaved rounds; every run's result file is checked case by case.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  evalYaml,
  interleaved,
  ROUNDS,
  report,
  tempProject,
  timedAgentv,
  verifyResults,
} from './support.mjs';

const OTEL = fileURLToPath(new URL('../../packages/otel/', import.meta.url));
const { createTraceIntake } = await import(path.join(OTEL, 'dist/index.js'));
const require = createRequire(path.join(OTEL, 'package.json'));
const { ExportTraceServiceRequest } =
  require('@opentelemetry/otlp-transformer/build/src/generated/root.js').opentelemetry.proto
    .collector.trace.v1;

const SPANS_PER_REQUEST = 500;
const REQUESTS = 60;
const CASES = 1000;
const WORKERS = 4;

/** One request of AI SDK-like spans (a tool call or a model call each) of `traceId`, in both encodings. */
function requests(traceId) {
  const string = (key, value) => ({ key, value: { stringValue: value } });
  const int = (key, value) => ({ key, value: { intValue: String(value) } });
  const spans = Array.from({ length: SPANS_PER_REQUEST }, (_, index) => ({
    traceId,
    spanId: (index + 1).toString(16).padStart(16, '0'),
    parentSpanId: 'ffffffffffffffff',
    name: index % 2 === 0 ? 'ai.toolCall' : 'ai.generateText.doGenerate',
    kind: 1,
    startTimeUnixNano: String(1_767_225_600_000_000_000n + BigInt(index) * 1_000_000n),
    endTimeUnixNano: String(1_767_225_600_500_000_000n + BigInt(index) * 1_000_000n),
    attributes:
      index % 2 === 0
        ? [
            string('ai.toolCall.name', 'get_weather'),
            string('ai.toolCall.id', `call_${index}`),
            string('ai.toolCall.args', '{"city":"Paris","unit":"celsius"}'),
            string('ai.toolCall.result', '{"forecast":"sunny","temperature":21}'),
            string('operation.name', 'ai.toolCall weather-agent'),
          ]
        : [
            string('ai.model.id', 'gpt-4o-mini'),
            string('ai.model.provider', 'openai.chat'),
            int('ai.usage.inputTokens', 30),
            int('ai.usage.outputTokens', 8),
            string('ai.response.finishReason', 'tool-calls'),
            string('gen_ai.system', 'openai.chat'),
          ],
    status: { code: 0 },
  }));
  const json = {
    resourceSpans: [
      {
        resource: { attributes: [string('service.name', 'weather-agent')] },
        scopeSpans: [{ scope: { name: 'ai' }, spans }],
      },
    ],
  };
  const bytes = structuredClone(json);
  for (const span of bytes.resourceSpans[0].scopeSpans[0].spans) {
    span.traceId = Buffer.from(span.traceId, 'hex');
    span.spanId = Buffer.from(span.spanId, 'hex');
    span.parentSpanId = Buffer.from(span.parentSpanId, 'hex');
  }
  return {
    json: JSON.stringify(json),
    protobuf: ExportTraceServiceRequest.encode(
      ExportTraceServiceRequest.fromObject(bytes),
    ).finish(),
  };
}

/**
 * A sender in a process of its own, as an agent is: posts the request `WARMUP` times untimed,
 * then `REQUESTS` times over `CONNECTIONS` connections, and prints the seconds the timed
 * requests took to be answered.
 */
const SENDER = `
const [url, type, file, warmup, requests, connections] = process.argv.slice(1);
const body = require('node:fs').readFileSync(file);
const post = async () => {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': type }, body });
  await response.arrayBuffer();
  if (!response.ok) throw new Error('receiver answered ' + response.status);
};
(async () => {
  for (let index = 0; index < Number(warmup); index++) await post();
  let left = Number(requests);
  const started = performance.now();
  await Promise.all(Array.from({ length: Number(connections) }, async () => {
    while (left-- > 0) await post();
  }));
  console.log((performance.now() - started) / 1000);
})();
`;
const WARMUP = 10;
const CONNECTIONS = 2;

/** Spans per second the receiver takes in `encoding` (answered, decoded and mapped to events). */
async function intake(encoding) {
  const receiver = createTraceIntake();
  await receiver.start();
  try {
    const call = receiver.openCall({ evalCaseId: 'bench', attempt: 0, target: 'bench' });
    const traceId = call.context.traceparent.split('-')[1];
    const file = path.join(project.dir, `request.${encoding}`);
    writeFileSync(file, requests(traceId)[encoding]);
    const url = `${call.context.env.OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces`;
    const type = encoding === 'json' ? 'application/json' : 'application/x-protobuf';
    const sender = spawn(
      process.execPath,
      ['-e', SENDER, url, type, file, WARMUP, REQUESTS, CONNECTIONS],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    sender.stdout.on('data', (chunk) => {
      output += chunk;
    });
    const code = await new Promise((resolve) => sender.on('exit', resolve));
    if (code !== 0) throw new Error(`the sender exited with ${code}`);
    const sendSeconds = Number(output.trim());
    const mapping = performance.now();
    const collected = await call.finish(0);
    const seconds = sendSeconds + (performance.now() - mapping) / 1000;
    const expected = SPANS_PER_REQUEST * (REQUESTS + WARMUP);
    if (collected.spanCount !== expected) {
      throw new Error(`received ${collected.spanCount} spans, sent ${expected}`);
    }
    return { spansPerSecond: (SPANS_PER_REQUEST * REQUESTS) / seconds };
  } finally {
    await receiver.close();
  }
}

/** What the default grace period adds to a call: `finish` of a call with nothing in flight. */
async function grace() {
  // The default of a target's `trace.grace_ms` (core's DEFAULT_TRACE_GRACE_MS).
  const graceMs = 50;
  const receiver = createTraceIntake();
  await receiver.start();
  try {
    const samples = [];
    for (let index = 0; index < 10; index++) {
      const call = receiver.openCall({ evalCaseId: 'bench', attempt: index, target: 'bench' });
      const started = performance.now();
      await call.finish(graceMs);
      samples.push(performance.now() - started);
    }
    return { addedMs: samples.reduce((sum, value) => sum + value, 0) / samples.length };
  } finally {
    await receiver.close();
  }
}

const COLLECTOR = `
import { createServer } from 'node:http';
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

const AGENT = `printf '{"text":"answer %s","trace":[{"type":"tool_call","timestamp":"2026-01-01T00:00:00Z","id":"c1","name":"search","input":{"q":"otel"}},{"type":"tool_result","timestamp":"2026-01-01T00:00:01Z","id":"c1","name":"search","output":"ok"}]}' {EVAL_ID}`;

const project = tempProject({
  '.agentv/targets.yaml': `targets:\n  - name: default\n    provider: cli\n    command_template: ${JSON.stringify(AGENT)}\n`,
  'evals/run.yaml': evalYaml(CASES),
  'collector.mjs': COLLECTOR,
});
const collector = spawn(process.execPath, ['collector.mjs'], {
  cwd: project.dir,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const port = await new Promise((resolve) =>
  collector.stdout.once('data', (data) => resolve(String(data).trim())),
);

function run(extra) {
  const { ms, result } = timedAgentv(
    ['eval', 'evals/run.yaml', '--workers', String(WORKERS), '--out', 'out.jsonl', ...extra],
    { cwd: project.dir },
  );
  if (result.stderr.includes('OpenTelemetry export')) throw new Error(result.stderr);
  verifyResults(path.join(project.dir, 'out.jsonl'), CASES, (id) => `answer ${id}`);
  return { ms };
}

try {
  const decoding = await interleaved({
    protobuf: () => intake('protobuf'),
    json: () => intake('json'),
  });
  const added = await grace();
  const runs = await interleaved({
    plain: () => run([]),
    file: () => run(['--otel-file', 'run.otlp.jsonl']),
    endpoint: () => run(['--otel-endpoint', `http://127.0.0.1:${port}`]),
  });
  console.log(
    `1,000 cases: ${runs.plain.ms.toFixed(0)} ms plain, ${runs.file.ms.toFixed(0)} ms with --otel-file, ${runs.endpoint.ms.toFixed(0)} ms with --otel-endpoint (medians of ${ROUNDS})`,
  );
  let ok = true;
  for (const encoding of ['protobuf', 'json']) {
    const rate = decoding[encoding].spansPerSecond;
    ok =
      report(
        `intake: OTLP/${encoding} spans decoded per second`,
        rate.toFixed(0),
        'spans/s',
        '>= 20,000',
        rate >= 20_000,
      ) && ok;
  }
  ok =
    report(
      'intake: time the default grace period adds to a call',
      added.addedMs.toFixed(1),
      'ms',
      '<= 100 ms',
      added.addedMs <= 100,
    ) && ok;
  for (const kind of ['file', 'endpoint']) {
    const overhead = (runs[kind].ms / runs.plain.ms - 1) * 100;
    ok =
      report(
        `export: --otel-${kind} added to a 1,000-case run`,
        overhead.toFixed(1),
        '%',
        '<= 5%',
        overhead <= 5,
        {
          plainMs: runs.plain.ms,
          exportMs: runs[kind].ms,
        },
      ) && ok;
  }
  process.exitCode = ok ? 0 : 1;
} finally {
  collector.kill();
  project.cleanup();
}
