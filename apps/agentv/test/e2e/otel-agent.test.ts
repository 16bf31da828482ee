import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// examples/otel-agent, offline: a real AI SDK agent with the official OTLP exporters, graded on
// the tool calls of its spans; its target says only `trace: { source: otlp }`.

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const EXAMPLE = path.join(ROOT, 'examples/otel-agent');

let scratch: string | undefined;
let project: Project | undefined;
afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  await project?.cleanup();
  scratch = undefined;
  project = undefined;
});

async function runExample(...args: string[]) {
  scratch = await mkdtemp(path.join(tmpdir(), 'agentv-otel-'));
  const out = path.join(scratch, 'out.jsonl');
  const run = await promisify(execFile)(
    process.execPath,
    ['run.mjs', '--out', out, '--include-trace', ...args],
    { cwd: EXAMPLE, env: { ...process.env, NO_COLOR: '1', CI: '1' } },
  );
  const lines = parseJsonl(readFileSync(out, 'utf8'));
  return { ...run, byId: Object.fromEntries(lines.map((line) => [line.eval_id, line])) };
}

describe('examples/otel-agent', () => {
  for (const [target, encoding] of [
    ['ai-sdk', 'protobuf'],
    ['ai-sdk-json', 'JSON'],
  ] as const) {
    it(`grades the AI SDK agent's tool calls from its spans (OTLP ${encoding})`, async () => {
      const { byId, stdout } = await runExample('--target', target);
      expect(stdout).toContain('2 passed, 0 failed');
      const paris = byId.paris!;
      expect(paris.passed).toBe(true);
      const calls = paris.trace.filter((event: { type: string }) => event.type === 'tool_call');
      expect(calls).toEqual([
        expect.objectContaining({ name: 'get_weather', input: { city: 'Paris' } }),
      ]);
      const result = paris.trace.find((event: { type: string }) => event.type === 'tool_result');
      expect(result.output).toEqual({ city: 'Paris', forecast: 'sunny, 21 °C' });
      // Real times from the spans: the tool ran after the first model call started.
      const steps = paris.trace.filter((event: { type: string }) => event.type === 'model_step');
      expect(steps).toHaveLength(2);
      expect(Date.parse(calls[0].timestamp)).toBeGreaterThanOrEqual(Date.parse(steps[0].timestamp));
      expect(Date.parse(result.timestamp)).toBeLessThanOrEqual(Date.parse(steps[1].timestamp));
      // The two model calls' usage, not the outer generateText span's again.
      expect(paris.usage).toEqual({ input_tokens: 60, output_tokens: 16, total_tokens: 76 });
      expect(byId.oslo!.trace_summary.toolCallsByName).toEqual({ get_weather: 1 });
    });
  }

  it('reads GenAI semantic-convention spans of a program that continues TRACEPARENT', async () => {
    const { byId } = await runExample('--target', 'genai');
    const trace = byId.paris!.trace;
    expect(trace.map((event: { type: string }) => event.type)).toEqual([
      'model_step',
      'tool_call',
      'tool_result',
    ]);
    expect(trace[0]).toMatchObject({
      name: 'gpt-4o-mini',
      metadata: { input_tokens: 42, output_tokens: 7 },
    });
    expect(trace[1]).toMatchObject({ id: 'call_1', name: 'get_weather', input: { city: 'Paris' } });
    expect(trace[2]).toMatchObject({ output: { forecast: 'sunny' } });
    expect(byId.paris!.usage).toEqual({ input_tokens: 42, output_tokens: 7, total_tokens: 49 });
  });

  it('records a failed span as an error event the trace summary counts', async () => {
    project = await createProject({
      '.agentv/targets.yaml': `
targets:
  - name: genai
    provider: cli
    command_template: node ${JSON.stringify(path.join(EXAMPLE, 'genai-agent.mjs'))} {PROMPT}
    trace: { source: otlp }
`,
      'evals/atlantis.yaml': `
execution: { target: genai }
evalcases:
  - id: atlantis
    input_messages: [{ role: user, content: What is the weather in Atlantis? }]
    evaluators:
      - { name: tools, type: tool_trajectory, mode: any_order, minimums: { find_city: 1 } }
`,
    });
    const run = await runAgentv(
      ['eval', 'evals/atlantis.yaml', '--out', 'out.jsonl', '--include-trace'],
      project.dir,
    );
    expect(run.stderr).toBe('');
    const [line] = parseJsonl(readFileSync(project.file('out.jsonl'), 'utf8'));
    expect(line!.trace_summary.errorCount).toBe(1);
    expect(line!.trace.find((event: { type: string }) => event.type === 'error')).toMatchObject({
      type: 'error',
      name: 'execute_tool find_city',
      text: 'no such city: Atlantis',
    });
    expect(line!.passed).toBe(true);
  });
});
