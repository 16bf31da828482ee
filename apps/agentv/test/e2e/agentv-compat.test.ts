import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// agentv-eval-v2 projects: agents that reply the way AgentV's own cli provider reads them,
// run for real through the `cli` provider, one process per case and in batch mode.

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

/**
 * `node agent.mjs single --prompt P --out FILE --files ... --end` or
 * `node agent.mjs batch INPUT_FILE OUTPUT_FILE`; the reply depends on a word in the question:
 * - `metrics`: text plus token_usage, cost_usd and (for case metrics-a only) duration_ms;
 * - `messages`: output_messages only, no text and no trace (search, then refund: lookupOrder missing);
 * - `unnamed`: a trace with tool_call events whose name is missing or empty;
 * - `files`: the words it got between --files and --end.
 */
const AGENT = `
import { readFileSync, writeFileSync } from 'node:fs';
const [mode, ...args] = process.argv.slice(2);
const now = new Date().toISOString();
function reply(id, question, files) {
  if (question.includes('metrics')) {
    const a = id === 'metrics-a';
    return {
      text: 'Refunded order 42.',
      token_usage: a ? { input: 1000, output: 200, cached: 300 } : { input: 500, output: 100 },
      cost_usd: a ? 0.02 : 0.01,
      ...(a ? { duration_ms: 1111 } : {}),
    };
  }
  if (question.includes('messages')) {
    return {
      output_messages: [
        { role: 'assistant', content: 'Looking up the order.', tool_calls: [{ tool: 'search', input: { q: 'order 42' } }] },
        { role: 'assistant', tool_calls: [{ tool: 'refund', input: { id: 42 }, output: 'ok' }] },
        { role: 'assistant', content: 'Refunded order 42.' },
      ],
    };
  }
  if (question.includes('unnamed')) {
    return {
      text: 'Refunded order 42.',
      trace: [
        { type: 'tool_call', timestamp: now },
        { type: 'tool_call', timestamp: now, name: '' },
        { type: 'tool_call', timestamp: now, name: 'refund' },
        { type: 'message', timestamp: now, text: 'done' },
      ],
    };
  }
  return { text: JSON.stringify(files) };
}
if (mode === 'single') {
  const take = (flag) => args[args.indexOf(flag) + 1];
  const files = args.slice(args.indexOf('--files') + 1, args.indexOf('--end'));
  writeFileSync(take('--out'), JSON.stringify(reply(take('--id'), take('--prompt'), files)));
} else {
  const [input, output] = args;
  const requests = readFileSync(input, 'utf8').split('\\n').filter(Boolean).map((line) => JSON.parse(line));
  writeFileSync(output, requests.map((r) => JSON.stringify({ id: r.id, ...reply(r.id, r.question, []) })).join('\\n') + '\\n');
}
`;

const TARGETS = `
targets:
  - name: single
    provider: cli
    cwd: ..
    max_retries: 0
    files_format: "--file {path}"
    command_template: node agent.mjs single --prompt {PROMPT} --id {EVAL_ID} --out {OUTPUT_FILE} --files {FILES} --end
  - name: batch
    provider: cli
    cwd: ..
    max_retries: 0
    provider_batching: true
    command_template: node agent.mjs batch {INPUT_FILE} {OUTPUT_FILE}
`;

const REFUNDED = '{ name: refunded, type: contains, value: "Refunded order 42." }';

const EVALS = `evalcases:
  - id: metrics-a
    input_messages: [{ role: user, content: "metrics please" }]
    evaluators: [${REFUNDED}]
  - id: metrics-b
    input_messages: [{ role: user, content: "metrics again" }]
    evaluators: [${REFUNDED}]
  - id: messages
    input_messages: [{ role: user, content: "messages please" }]
    evaluators:
      - ${REFUNDED}
      - name: trajectory
        type: tool_trajectory
        mode: in_order
        expected: [{ tool: search }, { tool: lookupOrder }, { tool: refund }]
  - id: unnamed
    input_messages: [{ role: user, content: "unnamed tools" }]
    evaluators:
      - ${REFUNDED}
      - { name: refund-called, type: tool_trajectory, mode: any_order, minimums: { refund: 1 } }
`;

async function run(target: 'single' | 'batch') {
  project = await createProject({
    'agent.mjs': AGENT,
    '.agentv/targets.yaml': TARGETS,
    'evals/compat.yaml': EVALS,
  });
  const result = await runAgentv(
    ['eval', 'evals/compat.yaml', '--target', target, '--out', 'out.jsonl', '--include-trace'],
    project.dir,
  );
  expect(result.stderr).toBe('');
  const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
  const byId = Object.fromEntries(lines.map((line) => [line.eval_id, line]));
  return { ...result, byId };
}

describe.each(['single', 'batch'] as const)(
  'AgentV replies through the cli provider (%s)',
  (target) => {
    it('carries agent-reported metrics to the result lines and the run summary', async () => {
      const { code, stdout, byId } = await run(target);
      expect(code).toBe(1); // the trajectory case fails; every other case passes
      expect(byId['metrics-a']).toMatchObject({
        passed: true,
        usage: { input_tokens: 1000, output_tokens: 200, cached_tokens: 300 },
        cost_usd: 0.02,
        duration_ms: 1111,
      });
      expect(byId['metrics-b'].usage).toEqual({ input_tokens: 500, output_tokens: 100 });
      expect(byId['metrics-b'].cost_usd).toBe(0.01);
      // No duration_ms: the measured duration.
      expect(byId['metrics-b'].duration_ms).toBeGreaterThan(0);
      expect(byId['metrics-b'].duration_ms).not.toBe(1111);
      expect(stdout).toContain('Tokens: 1,500 in (300 cached), 300 out  Cost: ~$0.0300');
    });

    it('answers an output_messages reply with its last assistant message; its tool calls are the trace', async () => {
      const { byId } = await run(target);
      const line = byId.messages;
      expect(line.candidate_answer).toBe('Refunded order 42.');
      expect(
        line.trace.map((event: { type: string; name?: string }) => [event.type, event.name]),
      ).toEqual([
        ['tool_call', 'search'],
        ['tool_call', 'refund'],
        ['tool_result', 'refund'],
      ]);
      expect(line.trace_summary).toEqual({
        eventCount: 3,
        toolNames: ['refund', 'search'],
        toolCallsByName: { refund: 1, search: 1 },
        errorCount: 0,
      });
      const contains = line.evaluator_results.find((r: { name: string }) => r.name === 'refunded');
      expect(contains.score).toBe(1);
    });

    it('scores an in_order trajectory with a missing step as AgentV does', async () => {
      const { byId } = await run(target);
      const trajectory = byId.messages.evaluator_results.find(
        (r: { name: string }) => r.name === 'trajectory',
      );
      // search matches; lookupOrder is never called, which leaves nothing for refund.
      expect(trajectory.score).toBeCloseTo(1 / 3);
      expect(trajectory.misses).toContain(
        'Expected call 2 "lookupOrder" not found after the previous match',
      );
    });

    it('counts tool_call events without a name as events, not tools', async () => {
      const { byId } = await run(target);
      expect(byId.unnamed.trace_summary).toEqual({
        eventCount: 4,
        toolNames: ['refund'],
        toolCallsByName: { refund: 1 },
        errorCount: 0,
      });
      expect(byId.unnamed.passed).toBe(true);
    });
  },
);

describe('files_format and {FILES} as AgentV renders them', () => {
  it('passes the formatter text as separate words and lists guideline files in {FILES}', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': TARGETS,
      'data/q3 report.txt': 'Q3 revenue grew 12%.',
      'data/style.instructions.md': 'Be terse.',
      'evals/files.yaml': `evalcases:
  - id: files
    input_messages:
      - role: user
        content:
          - { type: text, value: "files please" }
          - { type: file, value: "../data/q3 report.txt" }
          - { type: file, value: ../data/style.instructions.md }
    evaluators: [{ name: got-files, type: contains, value: "--file" }]
`,
    });
    const result = await runAgentv(
      ['eval', 'evals/files.yaml', '--target', 'single', '--out', 'out.jsonl'],
      project.dir,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [line] = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(JSON.parse(line!.candidate_answer)).toEqual([
      '--file',
      project.file('data/style.instructions.md'),
      '--file',
      project.file('data/q3 report.txt'),
    ]);
  });
});
