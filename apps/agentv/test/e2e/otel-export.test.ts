// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} is AgentV's placeholder syntax, not a JS template

import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { type LocalServer, refusedUrl, startLocalServer } from '../support/processes.js';
import {
  createProject,
  ECHO_AGENT,
  ECHO_TARGETS,
  type Project,
  parseJsonl,
  runAgentv,
} from '../support/project.js';

// `agentv eval --otel-endpoint / --otel-file`: the built CLI against a local OTLP/HTTP collector
// that decodes what it receives with the OpenTelemetry project's own protobuf messages.

const require = createRequire(import.meta.url);
const { ExportTraceServiceRequest } =
  require('@opentelemetry/otlp-transformer/build/src/generated/root.js').opentelemetry.proto
    .collector.trace.v1;

const EVAL = `
execution:
  evaluators: [{ name: echoes, type: contains, value: "You said" }]
evalcases:
  - { id: first, input_messages: [{ role: user, content: hello }] }
  - { id: second, input_messages: [{ role: user, content: world }] }
  - { id: third, input_messages: [{ role: user, content: again }] }
`;

let project: Project | undefined;
let collector: LocalServer | undefined;
afterEach(async () => {
  await collector?.close();
  await project?.cleanup();
  collector = undefined;
  project = undefined;
});

// biome-ignore lint/suspicious/noExplicitAny: decoded protobuf messages
async function startCollector(): Promise<{ requests: any[]; auth: (string | undefined)[] }> {
  // biome-ignore lint/suspicious/noExplicitAny: decoded protobuf messages
  const requests: any[] = [];
  const auth: (string | undefined)[] = [];
  collector = await startLocalServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      auth.push(request.headers.authorization);
      requests.push(ExportTraceServiceRequest.decode(Buffer.concat(chunks)));
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  return { requests, auth };
}

// biome-ignore lint/suspicious/noExplicitAny: OTLP attributes of either encoding
function attribute(span: any, key: string): unknown {
  // biome-ignore lint/suspicious/noExplicitAny: OTLP attributes of either encoding
  const value = span.attributes.find((entry: any) => entry.key === key)?.value;
  return value?.stringValue ?? value?.boolValue ?? value?.doubleValue ?? value?.intValue;
}

describe('agentv eval --otel-endpoint / --otel-file', () => {
  it('sends every case as a trace with its tool calls and graders, and writes the same as OTLP/JSON', async () => {
    project = await createProject({
      'agent.mjs': ECHO_AGENT,
      '.agentv/targets.yaml': ECHO_TARGETS,
      'evals/echo.yaml': EVAL,
      '.env': 'OTEL_TOKEN=s3cret-token\n',
    });
    const { requests, auth } = await startCollector();
    const run = await runAgentv(
      [
        'eval',
        'evals/echo.yaml',
        '--out',
        'out.jsonl',
        '--otel-endpoint',
        collector!.url,
        '--otel-header',
        'Authorization=Bearer ${{ OTEL_TOKEN }}',
        '--otel-file',
        'run.otlp.jsonl',
      ],
      project.dir,
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(auth[0]).toBe('Bearer s3cret-token');
    // biome-ignore lint/suspicious/noExplicitAny: decoded protobuf messages
    const sent = requests.flatMap((request: any) => request.resourceSpans[0].scopeSpans[0].spans);
    // biome-ignore lint/suspicious/noExplicitAny: decoded protobuf messages
    const roots = sent.filter((span: any) => span.name === 'agentv.eval');
    expect(roots.map((span: unknown) => attribute(span, 'agentv.case_id')).sort()).toEqual([
      'first',
      'second',
      'third',
    ]);
    const traceIds = new Set(
      // biome-ignore lint/suspicious/noExplicitAny: decoded protobuf messages
      roots.map((span: any) => Buffer.from(span.traceId).toString('hex')),
    );
    expect(traceIds.size).toBe(3);
    // biome-ignore lint/suspicious/noExplicitAny: decoded protobuf messages
    const names = sent.map((span: any) => span.name);
    expect(names.filter((name: string) => name === 'execute_tool echo')).toHaveLength(3);
    expect(names.filter((name: string) => name === 'agentv.grader echoes')).toHaveLength(3);
    expect(attribute(roots[0], 'agentv.verdict')).toBe('pass');

    const lines = parseJsonl(readFileSync(project.file('run.otlp.jsonl'), 'utf8'));
    const written = lines.flatMap((line) => line.resourceSpans[0].scopeSpans[0].spans);
    expect(written).toHaveLength(sent.length);
    expect(written[0]).toMatchObject({ traceId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(readFileSync(project.file('run.otlp.jsonl'), 'utf8')).not.toContain('s3cret');
  });

  it('reports an endpoint that cannot be reached at the end, and the run keeps its exit code', async () => {
    project = await createProject({
      'agent.mjs': ECHO_AGENT,
      '.agentv/targets.yaml': ECHO_TARGETS,
      'evals/echo.yaml': EVAL,
    });
    const url = await refusedUrl('');
    const run = await runAgentv(
      ['eval', 'evals/echo.yaml', '--out', 'out.jsonl', '--otel-endpoint', url],
      project.dir,
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `warning: OpenTelemetry export: 3 of 3 cases were not sent to ${url}/v1/traces (ECONNREFUSED); the run's results are not affected`,
    );
    expect(parseJsonl(readFileSync(project.file('out.jsonl'), 'utf8'))).toHaveLength(3);
  });

  it('refuses a header whose variable is not set, before running anything', async () => {
    project = await createProject({
      'agent.mjs': ECHO_AGENT,
      '.agentv/targets.yaml': ECHO_TARGETS,
      'evals/echo.yaml': EVAL,
    });
    const run = await runAgentv(
      [
        'eval',
        'evals/echo.yaml',
        '--otel-endpoint',
        'http://127.0.0.1:9/',
        '--otel-header',
        'Authorization=Bearer ${{ NO_SUCH_TOKEN_VAR }}',
      ],
      project.dir,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      '--otel-header Authorization names NO_SUCH_TOKEN_VAR, which is not set',
    );
  });
});
