import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shellQuote } from '@agentv/core/provider-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { createCliProvider } from './cli-provider.js';
import { makeRequest } from './test-support/make-request.js';

// `{TRACE_FILE}`: a real agent process writes OTLP/JSON there; its spans join the trace.

const scratch = mkdtempSync(join(tmpdir(), 'agentv-trace-file-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const SPANS = {
  resourceSpans: [
    {
      resource: { attributes: [] },
      scopeSpans: [
        {
          spans: [
            {
              traceId: '5b8efff798038103d269b633813fc60c',
              spanId: 'eee19b7ec3c1b174',
              name: 'execute_tool lookup',
              startTimeUnixNano: '1767225600000000000',
              endTimeUnixNano: '1767225601000000000',
              attributes: [
                { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
                { key: 'gen_ai.tool.name', value: { stringValue: 'lookup' } },
                { key: 'gen_ai.tool.call.arguments', value: { stringValue: '{"id":7}' } },
              ],
              status: {},
            },
          ],
        },
      ],
    },
  ],
};

/** An agent that writes `content` to the path it is given and answers on stdout. */
function agent(content: string | undefined) {
  const script = join(scratch, `agent-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(
    script,
    `import { writeFileSync } from 'node:fs';
${content === undefined ? '' : `writeFileSync(process.argv[2], ${JSON.stringify(content)});`}
console.log(JSON.stringify({ text: 'done', trace: [{ type: 'message', timestamp: '2026-01-01T00:00:00.500Z', text: 'hi' }] }));`,
  );
  return createCliProvider(
    {
      commandTemplate: `${shellQuote(process.execPath)} ${shellQuote(script)} {TRACE_FILE}`,
      filesFormat: '{path}',
      attachmentsFormat: '{path}',
      cwd: scratch,
      env: {},
      verbose: false,
    },
    { targetName: 'traced' },
  );
}

describe('{TRACE_FILE}', () => {
  it('adds the spans the agent wrote as OTLP/JSON to its trace, in time order', async () => {
    const response = await agent(JSON.stringify(SPANS)).invoke(makeRequest());
    expect(response.text).toBe('done');
    expect(response.trace?.map((event) => [event.type, event.name, event.timestamp])).toEqual(
      [
        ['message', undefined, '2026-01-01T00:00:00.500Z'],
        ['tool_call', 'lookup', '2026-01-01T00:00:00.000Z'],
        ['tool_result', 'lookup', '2026-01-01T00:00:01.000Z'],
      ].sort((a, b) => String(a[2]).localeCompare(String(b[2]))),
    );
    expect(response.trace?.find((event) => event.type === 'tool_call')?.input).toEqual({ id: 7 });
  });

  it('reads JSON lines, one export request per line', async () => {
    const line = JSON.stringify(SPANS);
    const response = await agent(
      `${line}\n${line.replace('eee19b7ec3c1b174', 'eee19b7ec3c1b175')}\n`,
    ).invoke(makeRequest());
    expect(response.trace?.filter((event) => event.type === 'tool_call')).toHaveLength(2);
  });

  it('leaves the trace as it is when the agent wrote none, and warns about one that is not OTLP', async () => {
    const none = await agent(undefined).invoke(makeRequest());
    expect(none.trace).toHaveLength(1);
    expect(none.warnings).toBeUndefined();
    const bad = await agent('{"resourceSpans": [').invoke(makeRequest());
    expect(bad.text).toBe('done');
    expect(bad.trace).toHaveLength(1);
    expect(bad.warnings).toEqual([
      expect.stringContaining('{TRACE_FILE} is not OTLP/JSON: not JSON'),
    ]);
  });
});
