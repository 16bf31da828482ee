import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { EvaluationResult } from '@agentv/core';
import { afterEach, describe, expect, it } from 'vitest';
import { traceMessages } from './otlp-proto.js';
import { createRunExporter, tracesUrl } from './run-exporter.js';

// The export against a local OTLP/HTTP collector that decodes what it gets with the official
// protobuf messages, and the OTLP/JSON file read back.

function result(evalId: string, extra: Partial<EvaluationResult> = {}): EvaluationResult {
  return {
    timestamp: '2026-01-01T00:00:10.000Z',
    evalId,
    dataset: 'weather',
    evalFile: '/evals/weather.yaml',
    target: 'ai-sdk',
    score: 1,
    passed: true,
    hits: [],
    misses: [],
    reasoning: '',
    candidateAnswer: 'sunny',
    evaluatorResults: [
      {
        name: 'tools',
        type: 'tool_trajectory',
        score: 1,
        weight: 1,
        verdict: 'pass',
        hits: [],
        misses: [],
      },
    ],
    attempts: 1,
    durationMs: 4000,
    usage: { inputTokens: 60, outputTokens: 16 },
    traceSummary: null,
    trace: [
      {
        type: 'model_step',
        timestamp: '2026-01-01T00:00:06.000Z',
        name: 'gpt-4o-mini',
        metadata: {
          trace_id: 'a'.repeat(32),
          span_id: '1'.repeat(16),
          duration_ms: 500,
          input_tokens: 30,
        },
      },
      {
        type: 'tool_call',
        timestamp: '2026-01-01T00:00:07.000Z',
        id: 'c1',
        name: 'get_weather',
        input: { city: 'Paris' },
        metadata: { trace_id: 'a'.repeat(32), span_id: '2'.repeat(16) },
      },
      {
        type: 'tool_result',
        timestamp: '2026-01-01T00:00:08.000Z',
        id: 'c1',
        name: 'get_weather',
        output: { forecast: 'sunny' },
      },
    ],
    ...extra,
  };
}

interface Collector {
  url: string;
  // biome-ignore lint/suspicious/noExplicitAny: decoded protobuf messages
  requests: any[];
  headers: IncomingMessage['headers'][];
  close(): Promise<void>;
}

async function startCollector(statuses: number[] = []): Promise<Collector> {
  const requests: Collector['requests'] = [];
  const headers: Collector['headers'] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const status = statuses.shift() ?? 200;
      if (status === 200) {
        headers.push(request.headers);
        requests.push(traceMessages().ExportTraceServiceRequest.decode(Buffer.concat(chunks)));
      }
      response.writeHead(status, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    headers,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let collector: Collector | undefined;
let scratch: string | undefined;
afterEach(async () => {
  await collector?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
  collector = undefined;
  scratch = undefined;
});

// biome-ignore lint/suspicious/noExplicitAny: decoded protobuf attributes
function attributes(list: any[]): Record<string, unknown> {
  return Object.fromEntries(
    list.map(({ key, value }) => [
      key,
      value.stringValue ?? value.boolValue ?? value.doubleValue ?? Number(value.intValue),
    ]),
  );
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('createRunExporter', () => {
  it('sends one trace per case in OTLP/protobuf: the case, the agent call with its tools and model steps, each grader', async () => {
    collector = await startCollector();
    const exporter = createRunExporter({
      endpoint: collector.url,
      headers: { authorization: 'Bearer t0ken' },
      resource: { 'agentv.run_id': 'run-1' },
      version: '5.1.0',
    });
    exporter.add(result('paris'));
    exporter.add(result('oslo', { passed: false, score: 0.5, error: 'grader crashed' }));
    expect(await exporter.close()).toEqual({ cases: 2, failures: [] });
    expect(collector.headers[0]!.authorization).toBe('Bearer t0ken');
    const [request] = collector.requests;
    const group = request.resourceSpans[0];
    expect(attributes(group.resource.attributes)).toEqual({
      'service.name': 'agentv',
      'agentv.run_id': 'run-1',
    });
    expect(group.scopeSpans[0].scope).toMatchObject({ name: 'agentv', version: '5.1.0' });
    const spans = group.scopeSpans[0].spans;
    const paris = spans.filter(
      (span: { traceId: Uint8Array }) => hex(span.traceId) === hex(spans[0].traceId),
    );
    expect(paris.map((span: { name: string }) => span.name)).toEqual([
      'agentv.eval',
      'invoke_agent ai-sdk',
      'chat gpt-4o-mini',
      'execute_tool get_weather',
      'agentv.grader tools',
    ]);
    const [root, agent, chat, tool, grader] = paris;
    expect(attributes(root.attributes)).toMatchObject({
      'agentv.case_id': 'paris',
      'agentv.target': 'ai-sdk',
      'agentv.score': 1,
      'agentv.verdict': 'pass',
      'gen_ai.operation.name': 'evaluate',
    });
    expect(hex(agent.parentSpanId)).toBe(hex(root.spanId));
    expect(attributes(agent.attributes)).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.usage.input_tokens': 60,
    });
    expect(agent.links.map((link: { spanId: Uint8Array }) => hex(link.spanId))).toEqual([
      '1'.repeat(16),
      '2'.repeat(16),
    ]);
    expect(hex(tool.parentSpanId)).toBe(hex(agent.spanId));
    expect(attributes(tool.attributes)).toMatchObject({
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.call.arguments': '{"city":"Paris"}',
      'gen_ai.tool.call.result': '{"forecast":"sunny"}',
    });
    expect(Number(tool.endTimeUnixNano) - Number(tool.startTimeUnixNano)).toBe(1e9);
    expect(attributes(chat.attributes)).toMatchObject({ 'gen_ai.usage.input_tokens': 30 });
    expect(attributes(grader.attributes)).toMatchObject({
      'agentv.grader.name': 'tools',
      'agentv.grader.score': 1,
      'agentv.grader.verdict': 'pass',
    });
    const oslo = spans.find(
      (span: { name: string; traceId: Uint8Array }) =>
        span.name === 'agentv.eval' && hex(span.traceId) !== hex(root.traceId),
    );
    expect(oslo.status).toMatchObject({ code: 2, message: 'grader crashed' });
  });

  it('sends batches as cases finish, retries a 503 and reports an endpoint that stays down', async () => {
    collector = await startCollector([503]);
    const exporter = createRunExporter({ endpoint: collector.url, batchCases: 2, retryDelayMs: 1 });
    exporter.add(result('a'));
    exporter.add(result('b'));
    exporter.add(result('c'));
    expect(await exporter.close()).toEqual({ cases: 3, failures: [] });
    expect(
      collector.requests.map((request) => request.resourceSpans[0].scopeSpans[0].spans.length),
    ).toEqual([10, 5]);

    const closed = collector.url;
    await collector.close();
    collector = undefined;
    const down = createRunExporter({ endpoint: closed, retryDelayMs: 1 });
    down.add(result('a'));
    expect(await down.close()).toEqual({
      cases: 1,
      failures: [{ target: 'endpoint', cases: 1, reason: 'ECONNREFUSED' }],
    });
  });

  it('reports an endpoint that does not answer in time, and speaks TLS to an https endpoint', async () => {
    const silent: Server = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const slow = createRunExporter({
        endpoint: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
        timeoutMs: 200,
        tries: 1,
      });
      slow.add(result('a'));
      expect(await slow.close()).toEqual({
        cases: 1,
        failures: [{ target: 'endpoint', cases: 1, reason: 'timed out after 0.2s' }],
      });
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }

    // A certificate of its own, which this process does not trust: the handshake says so.
    scratch = await mkdtemp(path.join(tmpdir(), 'agentv-otel-'));
    const [key, cert] = [path.join(scratch, 'key.pem'), path.join(scratch, 'cert.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    const tls = createHttpsServer(
      { key: await readFile(key), cert: await readFile(cert) },
      (_, response) => response.end(),
    );
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    try {
      const secure = createRunExporter({
        endpoint: `https://127.0.0.1:${(tls.address() as AddressInfo).port}`,
        tries: 1,
      });
      secure.add(result('a'));
      expect(await secure.close()).toEqual({
        cases: 1,
        failures: [{ target: 'endpoint', cases: 1, reason: 'DEPTH_ZERO_SELF_SIGNED_CERT' }],
      });
    } finally {
      await new Promise((resolve) => tls.close(resolve));
    }
  });

  it('writes OTLP/JSON lines to the file, ids in hex', async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'agentv-otel-'));
    const file = path.join(scratch, 'out', 'run.otlp.jsonl');
    const exporter = createRunExporter({ file, batchCases: 1 });
    exporter.add(result('paris'));
    exporter.add(result('oslo'));
    expect(await exporter.close()).toEqual({ cases: 2, failures: [] });
    const lines = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(2);
    const root = lines[1].resourceSpans[0].scopeSpans[0].spans[0];
    expect(root).toMatchObject({
      name: 'agentv.eval',
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    expect(root.attributes).toContainEqual({
      key: 'agentv.case_id',
      value: { stringValue: 'oslo' },
    });
  });

  it('posts to /v1/traces of a bare endpoint and to a full URL as given', () => {
    expect(tracesUrl('http://localhost:4318')).toBe('http://localhost:4318/v1/traces');
    expect(tracesUrl('https://otel.example/api/v1/traces')).toBe(
      'https://otel.example/api/v1/traces',
    );
  });
});
