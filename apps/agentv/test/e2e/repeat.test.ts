import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// A deterministic flaky agent: it learns its repeat number from {REPEAT}. "steady"
// always answers right, "flaky" on odd repeats (3 of 5), "rare" only on repeat 2 (1 of 5).
const AGENT = `
import { writeFileSync } from 'node:fs';
const args = process.argv.slice(2);
const prompt = args[args.indexOf('--prompt') + 1];
const repeat = Number(args[args.indexOf('--repeat') + 1]);
const out = args[args.indexOf('--out') + 1];
let right = true;
if (prompt.includes('flaky')) right = repeat % 2 === 1;
if (prompt.includes('rare')) right = repeat === 2;
writeFileSync(out, JSON.stringify({ text: right ? 'answer ok' : 'answer wrong' }));
`;

const TARGETS = `
targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node agent.mjs --prompt {PROMPT} --repeat {REPEAT} --out {OUTPUT_FILE}
    max_retries: 0
`;

const evalCase = (id: string) => `
  - id: ${id}
    input_messages: [{ role: user, content: "${id} question" }]
    evaluators:
      - { name: right, type: contains, value: "answer ok" }
`;

const EVAL = `execution:\n  target: default\nevalcases:\n${['steady', 'flaky', 'rare'].map(evalCase).join('')}`;

// biome-ignore lint/suspicious/noExplicitAny: tests read result lines of a known shape
type Line = Record<string, any>;

let project: Project;
beforeAll(async () => {
  project = await createProject({
    'agent.mjs': AGENT,
    '.agentv/targets.yaml': TARGETS,
    'evals/repeat.yaml': EVAL,
  });
});
afterAll(async () => {
  await project.cleanup();
});

async function runRepeat(name: string, extra: string[] = []) {
  const out = `${name}.jsonl`;
  const run = await runAgentv(
    ['eval', 'evals', '--repeat', '5', '--out', out, ...extra],
    project.dir,
  );
  const lines = parseJsonl(await readFile(project.file(out), 'utf8'));
  const byId = Object.fromEntries(lines.map((line: Line) => [line.eval_id, line]));
  return { run, lines, byId };
}

const verdicts = (byId: Record<string, Line>) =>
  Object.fromEntries(
    ['steady', 'flaky', 'rare'].map((id) => [id, [byId[id]!.score, byId[id]!.passed]]),
  );

describe('agentv eval --repeat', () => {
  it('mean (default): one aggregate line per case with every repeat nested and flaky marked', async () => {
    const { run, lines, byId } = await runRepeat('mean', ['--junit', 'junit.xml']);
    expect(run.stderr).toBe('');
    expect(lines).toHaveLength(3);
    expect(byId.flaky!.score).toBeCloseTo(0.6);
    expect(byId.rare!.score).toBeCloseTo(0.2);
    expect([byId.steady!.passed, byId.flaky!.passed, byId.rare!.passed]).toEqual([
      true,
      true,
      false,
    ]);
    expect(byId.flaky!.flaky).toBe(true);
    expect(byId.rare!.flaky).toBe(true);
    expect(byId.steady!.flaky).toBe(false);
    expect(byId.flaky!.repeats.reducer).toBe('mean');
    expect(byId.flaky!.repeats.runs.map((r: Line) => [r.repeat, r.passed])).toEqual([
      [1, true],
      [2, false],
      [3, true],
      [4, false],
      [5, true],
    ]);
    expect(run.code).toBe(1); // rare fails
    expect(run.stdout).toMatch(/flaky: 2/);
    expect(run.stdout).toMatch(/flaky\s+flaky\s+\(3 of 5 repeats passed\)/);
    const junit = await readFile(project.file('junit.xml'), 'utf8');
    expect(junit).toMatch(/<testsuites[^>]*tests="3"/);
    expect(junit).toMatch(/<testsuites[^>]*failures="1"/);
  });

  it('median, pass_at_k, pass_all and majority reduce scores and verdicts as documented', async () => {
    const median = await runRepeat('median', ['--repeat-reducer', 'median']);
    expect(verdicts(median.byId)).toEqual({
      steady: [1, true],
      flaky: [1, true],
      rare: [0, false],
    });
    expect(median.run.code).toBe(1);

    const any = await runRepeat('pass_at_k', ['--repeat-reducer', 'pass_at_k']);
    expect(verdicts(any.byId)).toEqual({ steady: [1, true], flaky: [1, true], rare: [1, true] });
    expect(any.run.code).toBe(0);

    const all = await runRepeat('pass_all', ['--repeat-reducer', 'pass_all']);
    expect(verdicts(all.byId)).toEqual({ steady: [1, true], flaky: [0, false], rare: [0, false] });
    expect(all.run.code).toBe(1);
    expect(all.run.stdout).toMatch(/1 passed|passed\D+1\b/i);

    const majority = await runRepeat('majority', ['--repeat-reducer', 'majority']);
    expect(majority.byId.flaky!.passed).toBe(true);
    expect(majority.byId.flaky!.score).toBeCloseTo(0.6);
    expect(majority.byId.rare!.passed).toBe(false);
    expect(majority.byId.rare!.score).toBeCloseTo(0.2);
  });

  it('--fail-on-flaky turns a passing aggregate with flaky cases into exit 1', async () => {
    const passing = await runRepeat('ok', ['--repeat-reducer', 'pass_at_k']);
    expect(passing.run.code).toBe(0);
    const strict = await runRepeat('strict', ['--repeat-reducer', 'pass_at_k', '--fail-on-flaky']);
    expect(strict.run.code).toBe(1);
    const steadyOnly = await runRepeat('steady', ['--eval-id', 'steady', '--fail-on-flaky']);
    expect(steadyOnly.run.code).toBe(0);
  });

  it('repeated shards merge with results merge, keeping the aggregates and flaky marks', async () => {
    for (const shard of ['1/2', '2/2']) {
      const run = await runAgentv(
        ['eval', 'evals', '--repeat', '5', '--shard', shard, '--out', `part-${shard[0]}.jsonl`],
        project.dir,
      );
      expect(run.stderr).not.toContain('unexpected');
    }
    const merge = await runAgentv(
      ['results', 'merge', 'part-1.jsonl', 'part-2.jsonl', '--out', 'merged.jsonl'],
      project.dir,
    );
    expect(merge.code).toBe(1);
    const merged = parseJsonl(await readFile(project.file('merged.jsonl'), 'utf8'));
    const byId = Object.fromEntries(merged.map((line: Line) => [line.eval_id, line]));
    expect(Object.keys(byId).sort()).toEqual(['flaky', 'rare', 'steady']);
    expect(byId.flaky!.flaky).toBe(true);
    expect(byId.flaky!.repeats.runs).toHaveLength(5);
    expect(byId.rare!.score).toBeCloseTo(0.2);
  });

  it('rejects an unknown reducer with a hint', async () => {
    const run = await runAgentv(
      ['eval', 'evals', '--repeat', '2', '--repeat-reducer', 'best'],
      project.dir,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--repeat-reducer best');
    expect(run.stderr).toContain('pass_at_k');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
