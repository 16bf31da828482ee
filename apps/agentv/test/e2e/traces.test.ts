import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

type ResultLine = ReturnType<typeof parseJsonl>[number];
type TraceEventLine = { type: string; name?: string; id?: string };

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

/**
 * An agent whose answer depends on a word in its prompt:
 * - `plain`: plain text, no trace;
 * - `messages`: JSON with output_messages holding tool calls, no trace;
 * - `flaky`: fails its first attempt ({ATTEMPT} 0), then answers with a trace;
 * - anything else: JSON with a trace (search twice, lookupOrder once, one invalid event).
 */
const TRACE_AGENT = `
import { writeFileSync } from 'node:fs';
const args = process.argv.slice(2);
const prompt = args[args.indexOf('--prompt') + 1];
const attempt = Number(args[args.indexOf('--attempt') + 1]);
const out = args[args.indexOf('--out') + 1];
const now = new Date().toISOString();
const trace = [
  { type: 'model_step', timestamp: now, name: 'gpt-test' },
  { type: 'tool_call', timestamp: now, id: 'c1', name: 'search', input: { q: prompt } },
  { type: 'tool_result', timestamp: now, id: 'c1', name: 'search', output: ['order 42'] },
  { type: 'tool_call', timestamp: now, name: 'lookupOrder', input: { id: 42 } },
  { type: 'tool_call', timestamp: now, name: 'search', input: { q: 'again' } },
  { type: 'not_a_type', timestamp: now, name: 'dropped' },
  { type: 'message', timestamp: now, text: 'Refunded order 42.' },
];
if (prompt.includes('plain')) {
  writeFileSync(out, 'Refunded order 42 (plain).');
} else if (prompt.includes('messages')) {
  writeFileSync(out, JSON.stringify({
    text: 'Refunded order 42.',
    output_messages: [
      { role: 'assistant', tool_calls: [
        { tool: 'lookupOrder', input: { id: 42 }, output: { total: 59.9 }, id: 't1' },
        { tool: 'refund', input: { id: 42 } },
      ] },
      { role: 'assistant', content: 'Refunded order 42.' },
    ],
  }));
} else if (prompt.includes('flaky') && attempt === 0) {
  console.error('agent: flaky first attempt');
  process.exit(7);
} else {
  writeFileSync(out, JSON.stringify({ text: 'Refunded order 42.', trace }));
}
`;

const TARGETS = `
targets:
  - name: agent
    provider: cli
    cwd: ..
    command_template: node agent.mjs --prompt {PROMPT} --attempt {ATTEMPT} --out {OUTPUT_FILE}
    max_retries: 2
`;

function evalFile(cases: [id: string, prompt: string][], dataset?: string): string {
  return `${dataset ? `dataset: ${dataset}\n` : ''}execution:
  target: agent
  evaluators:
    - { name: refunded, type: contains, value: "Refunded" }
evalcases:
${cases
  .map(
    ([id, prompt]) =>
      `  - id: ${JSON.stringify(id)}\n    input_messages: [{ role: user, content: ${JSON.stringify(prompt)} }]\n`,
  )
  .join('')}`;
}

async function setup(files: Record<string, string>): Promise<Project> {
  project = await createProject({
    'agent.mjs': TRACE_AGENT,
    '.agentv/targets.yaml': TARGETS,
    ...files,
  });
  return project;
}

async function resultsOf(dir: Project, file = 'out.jsonl'): Promise<ResultLine[]> {
  return parseJsonl(await readFile(dir.file(file), 'utf8'));
}

/** Every file under `dir`, relative to it, sorted. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

const SUMMARY = {
  eventCount: 6,
  toolNames: ['lookupOrder', 'search'],
  toolCallsByName: { lookupOrder: 1, search: 2 },
  errorCount: 0,
};

/** The agent's one invalid trace event, reported once per target (not once per case). */
const DROPPED_EVENT_WARNING =
  'warning: target "agent", case "refund-001": trace event 6 (not_a_type "dropped") left out: type must be one of model_step, tool_call, tool_result, message, error (warnings of this target\'s later replies are not shown)';

describe('result output includes trace summary by default', () => {
  it('JSONL includes trace_summary by default', async () => {
    const dir = await setup({ 'evals/refunds.yaml': evalFile([['refund-001', 'refund 42']]) });
    const run = await runAgentv(['eval', 'evals/refunds.yaml', '--out', 'out.jsonl'], dir.dir);
    expect(run.stderr).toBe(`${DROPPED_EVENT_WARNING}\n`);
    expect(run.code).toBe(0);
    const [line] = await resultsOf(dir);
    expect(line?.trace_summary).toEqual(SUMMARY);
    expect(line).not.toHaveProperty('trace');
    expect(line).not.toHaveProperty('output_messages');
  });

  it('Trace summary includes tool identity, usable by a code_judge without provider-specific parsing', async () => {
    const dir = await setup({
      'judge.mjs': `
let input = '';
for await (const chunk of process.stdin) input += chunk;
const { candidate_trace_summary: summary } = JSON.parse(input);
const searches = summary?.toolCallsByName?.search ?? 0;
console.log(JSON.stringify({
  score: searches === 2 && summary.toolNames.includes('lookupOrder') ? 1 : 0,
  hits: ['search called ' + searches + ' times'],
}));
`,
      'evals/refunds.yaml': `
execution:
  target: agent
evalcases:
  - id: refund-001
    input_messages: [{ role: user, content: refund 42 }]
    evaluators:
      - { name: tools, type: code_judge, script: node ../judge.mjs }
`,
    });
    const run = await runAgentv(['eval', 'evals/refunds.yaml', '--out', 'out.jsonl'], dir.dir);
    expect(run.code).toBe(0);
    const [line] = await resultsOf(dir);
    expect(line?.trace_summary.toolNames).toEqual(['lookupOrder', 'search']);
    expect(line?.trace_summary.toolCallsByName).toEqual({ lookupOrder: 1, search: 2 });
    expect(line?.evaluator_results[0]).toMatchObject({
      name: 'tools',
      score: 1,
      hits: ['search called 2 times'],
    });
  });

  it('No trace available: trace_summary is null', async () => {
    const dir = await setup({ 'evals/refunds.yaml': evalFile([['plain-001', 'plain refund']]) });
    const run = await runAgentv(
      ['eval', 'evals/refunds.yaml', '--out', 'out.jsonl', '--include-trace'],
      dir.dir,
    );
    expect(run.code).toBe(0);
    const [line] = await resultsOf(dir);
    expect(line?.candidate_answer).toBe('Refunded order 42 (plain).');
    expect(line?.trace_summary).toBeNull();
    expect(line?.trace).toBeNull();
  });

  it('derives the trace from output_messages tool calls when the agent sends no trace', async () => {
    const dir = await setup({
      'evals/refunds.yaml': `
execution:
  target: agent
evalcases:
  - id: messages-001
    input_messages: [{ role: user, content: messages please }]
    evaluators:
      - name: order
        type: tool_trajectory
        mode: in_order
        expected: [{ tool: lookupOrder, input: { id: 42 } }, { tool: refund }]
`,
    });
    const run = await runAgentv(
      ['eval', 'evals/refunds.yaml', '--out', 'out.jsonl', '--include-trace'],
      dir.dir,
    );
    expect(run.code).toBe(0);
    const [line] = await resultsOf(dir);
    expect(line?.passed).toBe(true);
    expect(line?.trace_summary).toEqual({
      eventCount: 3,
      toolNames: ['lookupOrder', 'refund'],
      toolCallsByName: { lookupOrder: 1, refund: 1 },
      errorCount: 0,
    });
    expect(line?.trace.map((event: TraceEventLine) => [event.type, event.name, event.id])).toEqual([
      ['tool_call', 'lookupOrder', 't1'],
      ['tool_result', 'lookupOrder', 't1'],
      ['tool_call', 'refund', undefined],
    ]);
    expect(line?.output_messages[0].tool_calls[0]).toMatchObject({ tool: 'lookupOrder' });
  });
});

describe('full trace inline via --include-trace', () => {
  it('Include full trace in results: the normalised trace array and trace_summary', async () => {
    const dir = await setup({
      'evals/refunds.yaml': evalFile([
        ['refund-001', 'refund 42'],
        ['refund-002', 'refund 43'],
      ]),
    });
    const run = await runAgentv(
      ['eval', 'evals/refunds.yaml', '--out', 'out.jsonl', '--include-trace', '--workers', '1'],
      dir.dir,
    );
    expect(run.code).toBe(0);
    // Seeds 000/001: the invalid event is ignored; the user is told once why the trace is short.
    expect(run.stderr).toBe(`${DROPPED_EVENT_WARNING}\n`);
    const [line] = (await resultsOf(dir)).filter((result) => result.eval_id === 'refund-001');
    expect(line?.trace_summary).toEqual(SUMMARY);
    // The invalid event is dropped; the other six are kept in order.
    expect(line?.trace.map((event: TraceEventLine) => event.type)).toEqual([
      'model_step',
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_call',
      'message',
    ]);
    expect(line?.trace[1]).toMatchObject({ name: 'search', id: 'c1', input: { q: 'refund 42' } });
    expect(line?.output_messages).toBeNull();
  });

  it('Default excludes full trace: only trace_summary', async () => {
    const dir = await setup({
      'evals/refunds.yaml': evalFile([
        ['refund-001', 'refund 42'],
        ['messages-001', 'messages please'],
      ]),
    });
    const run = await runAgentv(['eval', 'evals/refunds.yaml', '--out', 'out.jsonl'], dir.dir);
    expect(run.code).toBe(0);
    const lines = await resultsOf(dir);
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line).not.toHaveProperty('trace');
      expect(line).not.toHaveProperty('output_messages');
      expect(line.trace_summary).not.toBeNull();
    }
    const text = await readFile(dir.file('out.jsonl'), 'utf8');
    expect(text).not.toContain('"type":"tool_call"');
  });
});

describe('trace artifacts dumped to files with --dump-traces', () => {
  it('Dump traces enabled: one file per case attempt, retries included, null when no trace', async () => {
    const dir = await setup({
      'evals/refunds.yaml': evalFile([
        ['branch-deactivation-001', 'refund 42'],
        ['flaky-001', 'flaky refund'],
        ['plain-001', 'plain refund'],
      ]),
    });
    const run = await runAgentv(['eval', 'evals/refunds.yaml', '--dump-traces'], dir.dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Traces: ${path.join('.agentv', 'traces')}${path.sep} (4 files)`);
    const folder = dir.file('.agentv/traces');
    expect(await filesUnder(folder)).toEqual([
      'branch-deactivation-001_attempt-1.json',
      'flaky-001_attempt-1.json',
      'flaky-001_attempt-2.json',
      'plain-001_attempt-1.json',
    ]);
    const read = async (name: string) =>
      JSON.parse(await readFile(path.join(folder, name), 'utf8'));

    const traced = await read('branch-deactivation-001_attempt-1.json');
    expect(traced).toMatchObject({
      eval_id: 'branch-deactivation-001',
      attempt: 1,
      target: 'agent',
      trace_summary: SUMMARY,
    });
    expect(traced.trace).toHaveLength(6);
    expect(traced.trace[3]).toMatchObject({ type: 'tool_call', name: 'lookupOrder' });

    const failed = await read('flaky-001_attempt-1.json');
    expect(failed).toMatchObject({
      eval_id: 'flaky-001',
      attempt: 1,
      trace: null,
      trace_summary: null,
    });
    expect(failed.error).toContain('exited with code 7');
    expect(await read('flaky-001_attempt-2.json')).toMatchObject({
      attempt: 2,
      trace_summary: SUMMARY,
    });

    const plain = await read('plain-001_attempt-1.json');
    expect(plain).toMatchObject({ eval_id: 'plain-001', attempt: 1, target: 'agent' });
    expect(plain.trace).toBeNull();
    expect(plain.trace_summary).toBeNull();
    expect(Object.keys(plain)).toEqual(expect.arrayContaining(['trace', 'trace_summary']));
  });

  it('names each file of a --repeat run by its repeat and attempt', async () => {
    const dir = await setup({
      'evals/refunds.yaml': evalFile([
        ['refund-001', 'refund 42'],
        ['flaky-001', 'flaky refund'],
      ]),
    });
    const run = await runAgentv(
      ['eval', 'evals/refunds.yaml', '--dump-traces', '--repeat', '2'],
      dir.dir,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Traces: ${path.join('.agentv', 'traces')}${path.sep} (6 files)`);
    const folder = dir.file('.agentv/traces');
    // The flaky agent fails its first attempt in each repeat: attempts count from 1 again.
    expect(await filesUnder(folder)).toEqual([
      'flaky-001_repeat-1_attempt-1.json',
      'flaky-001_repeat-1_attempt-2.json',
      'flaky-001_repeat-2_attempt-1.json',
      'flaky-001_repeat-2_attempt-2.json',
      'refund-001_repeat-1_attempt-1.json',
      'refund-001_repeat-2_attempt-1.json',
    ]);
    const read = async (name: string) =>
      JSON.parse(await readFile(path.join(folder, name), 'utf8'));
    expect(await read('flaky-001_repeat-2_attempt-1.json')).toMatchObject({
      eval_id: 'flaky-001',
      repeat: 2,
      attempt: 1,
      trace: null,
    });
    expect(await read('refund-001_repeat-2_attempt-1.json')).toMatchObject({
      eval_id: 'refund-001',
      repeat: 2,
      attempt: 1,
      trace_summary: SUMMARY,
    });
  });

  it('Dump traces disabled by default: no trace files are written', async () => {
    const dir = await setup({
      'evals/refunds.yaml': evalFile([
        ['refund-001', 'refund 42'],
        ['flaky-001', 'flaky refund'],
      ]),
    });
    const run = await runAgentv(['eval', 'evals/refunds.yaml', '--include-trace'], dir.dir);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('Traces:');
    await expect(stat(dir.file('.agentv/traces'))).rejects.toThrow();
    expect(await filesUnder(dir.file('.agentv'))).toEqual(
      ['results/' + (await readdir(dir.file('.agentv/results')))[0], 'targets.yaml']
        .map((name) => name.split('/').join(path.sep))
        .sort(),
    );
  });

  it('dumps one file per case of a batch (provider_batching)', async () => {
    const dir = await setup({
      'runner.mjs': `
import { readFileSync, writeFileSync } from 'node:fs';
const [input, output] = process.argv.slice(2);
const now = new Date().toISOString();
const requests = readFileSync(input, 'utf8').split('\\n').filter(Boolean).map((line) => JSON.parse(line));
writeFileSync(output, requests.map((request) => JSON.stringify({
  id: request.id,
  text: 'Refunded ' + request.id,
  ...(request.id === 'b-2' ? {} : { trace: [{ type: 'tool_call', timestamp: now, name: 'refund' }] }),
})).join('\\n') + '\\n');
`,
      '.agentv/targets.yaml': `
targets:
  - name: agent
    provider: cli
    cwd: ..
    provider_batching: true
    command_template: node runner.mjs {INPUT_FILE} {OUTPUT_FILE}
`,
      'evals/batch.yaml': evalFile([
        ['b-1', 'one'],
        ['b-2', 'two'],
      ]),
    });
    const run = await runAgentv(['eval', 'evals/batch.yaml', '--dump-traces'], dir.dir);
    expect(run.code).toBe(0);
    const folder = dir.file('.agentv/traces');
    expect(await filesUnder(folder)).toEqual(['b-1_attempt-1.json', 'b-2_attempt-1.json']);
    const first = JSON.parse(await readFile(path.join(folder, 'b-1_attempt-1.json'), 'utf8'));
    expect(first).toMatchObject({
      eval_id: 'b-1',
      dataset: 'batch',
      attempt: 1,
      target: 'agent',
      trace_summary: { toolCallsByName: { refund: 1 } },
    });
    const second = JSON.parse(await readFile(path.join(folder, 'b-2_attempt-1.json'), 'utf8'));
    expect(second).toMatchObject({ eval_id: 'b-2', trace: null, trace_summary: null });
  });

  it('keeps unsafe ids inside .agentv/traces and same ids from two eval files apart', async () => {
    const unsafe = [
      '../../outside',
      '/etc/passwd',
      'a/../../b',
      '..',
      'C:\\win',
      'spaces and "quotes"',
    ];
    const dir = await setup({
      'evals/support.yaml': evalFile([
        ...unsafe.map((id, index): [string, string] => [id, `refund ${index}`]),
        ['shared', 'refund s'],
      ]),
      'evals/billing.yaml': evalFile([['shared', 'refund b']], 'billing'),
    });
    const run = await runAgentv(['eval', 'evals', '--dump-traces', '--out', 'out.jsonl'], dir.dir);
    expect(run.code).toBe(0);
    // Nothing but the trace files was written anywhere in the project.
    const written = (await filesUnder(dir.dir)).filter(
      (file) => !file.startsWith(`.git${path.sep}`) && !['agent.mjs', 'out.jsonl'].includes(file),
    );
    const traces = written.filter((file) =>
      file.startsWith(path.join('.agentv', 'traces') + path.sep),
    );
    expect(written.filter((file) => !traces.includes(file)).sort()).toEqual(
      [
        path.join('.agentv', 'targets.yaml'),
        path.join('evals', 'billing.yaml'),
        path.join('evals', 'support.yaml'),
      ].sort(),
    );
    expect(traces).toHaveLength(unsafe.length + 2);
    const dumps = await Promise.all(
      traces.map(async (file) => JSON.parse(await readFile(dir.file(file), 'utf8'))),
    );
    expect(dumps.map((dump) => dump.eval_id).sort()).toEqual(
      [...unsafe, 'shared', 'shared'].sort(),
    );
    const shared = dumps.filter((dump) => dump.eval_id === 'shared');
    expect(shared.map((dump) => dump.dataset).sort()).toEqual(['billing', 'support']);
    expect(traces).toContain(path.join('.agentv', 'traces', 'shared_attempt-1.json'));
  });
});
