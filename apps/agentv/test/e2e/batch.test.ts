import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

/** Reads the request bundle, logs one line per run, writes JSONL answers shaped by BATCH_MODE. */
const BATCH_RUNNER = `
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
const [input, output] = process.argv.slice(2);
appendFileSync('runs.log', process.pid + '\\n');
const requests = readFileSync(input, 'utf8').split('\\n').filter(Boolean).map((line) => JSON.parse(line));
const now = new Date().toISOString();
const mode = process.env.BATCH_MODE ?? 'ok';
const lines = requests.map((request, index) => JSON.stringify({
  id: request.id,
  // 'swap' is a runner bug: each pair of neighbours gets each other's answer.
  text: 'answer: ' + (mode === 'swap' ? (requests[index ^ 1] ?? request) : request).question,
  trace: [
    { type: 'tool_call', timestamp: now, name: 'lookup', input: { q: request.question } },
    { type: 'bogus', timestamp: now },
    { type: 'tool_result', timestamp: now, name: 'lookup', output: 'ok' },
  ],
  output_messages: [{ role: 'assistant', tool_calls: [{ tool: 'lookup', input: { q: request.question } }] }],
}));
if (mode === 'bad-line-7') lines[6] = '{"id": "c6", "text": oops';
if (mode === 'missing') lines.splice(1, 2);
// A huge unparseable line: 20,000 characters of output ending in a marker.
if (mode === 'huge-bad-line') lines[2] = '{"id": "c2", "text": ' + 'x'.repeat(20000) + ' END-OF-HUGE-LINE';
writeFileSync(output, lines.join('\\n') + '\\n');
`;

const TARGETS = `
targets:
  - name: default
    provider: cli
    cwd: ..
    provider_batching: true
    max_retries: 1
    command_template: node runner.mjs {INPUT_FILE} {OUTPUT_FILE}
`;

/** Cases c0..c<count-1>; each passes only with its own answer, `answer: q<n>`. */
function evalFile(count: number): string {
  const cases = Array.from(
    { length: count },
    (_, index) =>
      `  - id: c${index}\n    input_messages: [{ role: user, content: "q${index}" }]\n` +
      `    evaluators:\n      - { name: own-answer, type: equals, value: "answer: q${index}" }\n` +
      '      - { name: called-lookup, type: tool_trajectory, mode: any_order, minimums: { lookup: 1 } }\n',
  ).join('');
  return `evalcases:\n${cases}`;
}

/** The answer case `c<n>` must get: its own question echoed. */
function ownAnswer(evalId: string): string {
  return `answer: q${evalId.slice(1)}`;
}

async function setup(count: number) {
  project = await createProject({
    'runner.mjs': BATCH_RUNNER,
    '.agentv/targets.yaml': TARGETS,
    'evals/batch.yaml': evalFile(count),
  });
  return project;
}

async function runs(dir: Project): Promise<number> {
  return (await readFile(dir.file('runs.log'), 'utf8')).split('\n').filter(Boolean).length;
}

describe('agentv eval with provider_batching', () => {
  it('answers 10,000 cases with one process start and writes 10,000 result lines', async () => {
    const dir = await setup(10_000);
    const run = await runAgentv(['eval', 'evals/batch.yaml', '--out', 'out.jsonl'], dir.dir);
    // Seeds 000/001: the bogus trace event of every line is ignored; one warning says so.
    expect(run.stderr).toBe(
      'warning: target "default", case "c0": trace event 2 (bogus) left out: type must be one of model_step, tool_call, tool_result, message, error (warnings of this target\'s later replies are not shown)\n',
    );
    expect(run.code).toBe(0);
    expect(await runs(dir)).toBe(1);
    const lines = parseJsonl(await readFile(dir.file('out.jsonl'), 'utf8'));
    expect(lines).toHaveLength(10_000);
    expect(new Set(lines.map((line) => line.eval_id)).size).toBe(10_000);
    // Each case got its own answer, not a neighbour's.
    expect(lines.filter((line) => line.candidate_answer !== ownAnswer(line.eval_id))).toEqual([]);
    expect(lines.every((line) => line.passed)).toBe(true);
    expect(run.stdout).toContain('10000 cases: 10000 passed, 0 failed, 0 errored');
  }, 120_000);

  it('grades batch traces: invalid events dropped, valid ones summarised and given to graders', async () => {
    const dir = await setup(3);
    const run = await runAgentv(
      ['eval', 'evals/batch.yaml', '--out', 'out.jsonl', '--include-trace'],
      dir.dir,
    );
    expect(run.code).toBe(0);
    const [line] = parseJsonl(await readFile(dir.file('out.jsonl'), 'utf8'));
    expect(line!.trace_summary).toEqual({
      eventCount: 2,
      toolNames: ['lookup'],
      toolCallsByName: { lookup: 1 },
      errorCount: 0,
    });
    expect(line!.trace.map((event: { type: string }) => event.type)).toEqual([
      'tool_call',
      'tool_result',
    ]);
    expect(line!.output_messages).toEqual([
      {
        role: 'assistant',
        tool_calls: [{ tool: 'lookup', input: { q: expect.stringMatching(/^q\d$/) } }],
      },
    ]);
  });

  it("fails the cases of a runner that gives each case its neighbour's answer", async () => {
    const dir = await setup(4);
    const run = await runAgentv(['eval', 'evals/batch.yaml', '--out', 'out.jsonl'], dir.dir, {
      BATCH_MODE: 'swap',
    });
    const lines = parseJsonl(await readFile(dir.file('out.jsonl'), 'utf8'));
    expect(lines).toHaveLength(4);
    for (const line of lines) {
      const neighbour = `c${Number(line.eval_id.slice(1)) ^ 1}`;
      expect(line.candidate_answer).toBe(ownAnswer(neighbour));
      expect(line.passed).toBe(false);
      expect(line.error).toBeUndefined();
    }
    expect(run.stdout).toContain('4 cases: 0 passed, 4 failed, 0 errored');
  });

  it('fails the batch on malformed line 7: every case errors with "line 7", after the retry', async () => {
    const dir = await setup(10);
    const run = await runAgentv(['eval', 'evals/batch.yaml', '--out', 'out.jsonl'], dir.dir, {
      BATCH_MODE: 'bad-line-7',
    });
    expect(run.code).toBe(2);
    expect(await runs(dir)).toBe(2);
    const lines = parseJsonl(await readFile(dir.file('out.jsonl'), 'utf8'));
    expect(lines).toHaveLength(10);
    for (const line of lines) {
      expect(line.passed).toBe(false);
      expect(line.attempts).toBe(2);
      expect(line.error).toContain('line 7 is not valid JSON');
      expect(line.error).toContain('{"id": "c6", "text": oops');
    }
  });

  it('puts a truncated excerpt of a huge bad line in the error, never the whole output', async () => {
    const dir = await setup(5);
    const run = await runAgentv(
      ['eval', 'evals/batch.yaml', '--out', 'out.jsonl', '--max-retries', '0'],
      dir.dir,
      { BATCH_MODE: 'huge-bad-line' },
    );
    expect(run.code).toBe(2);
    const lines = parseJsonl(await readFile(dir.file('out.jsonl'), 'utf8'));
    expect(lines).toHaveLength(5);
    for (const line of lines) {
      expect(line.error).toContain('line 3 is not valid JSON: {"id": "c2", "text": xxx');
      expect(line.error).not.toContain('END-OF-HUGE-LINE');
      expect(line.error.length).toBeLessThan(1_000);
    }
    // Nor is the whole line printed anywhere.
    expect(run.stdout + run.stderr).not.toContain('END-OF-HUGE-LINE');
    expect(run.stdout + run.stderr).not.toContain('x'.repeat(1_000));
  });

  it('fails the batch listing the ids missing from the output', async () => {
    const dir = await setup(4);
    const run = await runAgentv(
      ['eval', 'evals/batch.yaml', '--out', 'out.jsonl', '--max-retries', '0'],
      dir.dir,
      {
        BATCH_MODE: 'missing',
      },
    );
    expect(run.code).toBe(2);
    const lines = parseJsonl(await readFile(dir.file('out.jsonl'), 'utf8'));
    expect(lines.map((line) => line.error)).toEqual(
      Array(4).fill(expect.stringContaining('no line for 2 of 4 requested case(s): c1, c2')),
    );
  });

  it('rejects a batch target whose template uses {PROMPT} before running anything', async () => {
    project = await createProject({
      'runner.mjs': BATCH_RUNNER,
      '.agentv/targets.yaml': TARGETS.replace(
        '{INPUT_FILE} {OUTPUT_FILE}',
        '{PROMPT} {OUTPUT_FILE}',
      ),
      'evals/batch.yaml': evalFile(2),
    });
    const run = await runAgentv(['eval', 'evals/batch.yaml'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('{PROMPT} cannot be used with provider_batching: true');
    await expect(readFile(project.file('runs.log'))).rejects.toThrow();
  });
});
