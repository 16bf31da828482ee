import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatReply, startLlmServer } from '../support/llm-servers.js';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// Budgets end to end with a real `cli` agent that reports its usage and cost (600 tokens and
// $0.30 a call), and one that takes 20 s unless stopped.

const AGENT = `
const prompt = process.argv[2];
if (prompt.includes('slow')) await new Promise((resolve) => setTimeout(resolve, 20_000));
console.log(JSON.stringify({ text: 'answer ok', usage: { input_tokens: 500, output_tokens: 100 }, cost_usd: 0.3 }));
`;

const TARGETS = `targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node agent.mjs {PROMPT}
    max_retries: 0
`;

const CASE = (id: string, execution = '') => `
  - id: ${id}
    input_messages: [{ role: user, content: "${id} please" }]${execution === '' ? '' : `\n    execution: { ${execution} }`}`;

// biome-ignore lint/suspicious/noExplicitAny: tests read result lines of a known shape
type Line = Record<string, any>;

let project: Project;
beforeAll(async () => {
  project = await createProject({
    'agent.mjs': AGENT,
    '.agentv/targets.yaml': TARGETS,
    'evals/budget.yaml': `execution:
  target: default
  evaluators:
    - { name: right, type: contains, value: "answer ok" }
evalcases:${CASE('within', 'max_tokens: 1000, max_cost_usd: 1')}${CASE('tokens', 'max_tokens: 100')}${CASE('cost', 'max_cost_usd: 0.1')}${CASE('slow', 'max_duration_seconds: 1')}
`,
    'evals/spend.yaml': `execution:
  target: default
  evaluators:
    - { name: right, type: contains, value: "answer ok" }
evalcases:${CASE('one')}${CASE('two')}${CASE('three')}${CASE('four')}
`,
  });
});
afterAll(async () => {
  await project.cleanup();
});

describe('case budgets', () => {
  it('fail a case over max_tokens or max_cost_usd with the measured value, and stop one over max_duration_seconds', async () => {
    const started = Date.now();
    const run = await runAgentv(['eval', 'evals/budget.yaml', '--out', 'case.jsonl'], project.dir);
    const elapsed = Date.now() - started;
    expect(run.code).toBe(1);
    const lines = parseJsonl(await readFile(project.file('case.jsonl'), 'utf8')) as Line[];
    const byId = Object.fromEntries(lines.map((line) => [line.eval_id, line]));
    expect(byId.within!.passed).toBe(true);
    expect(byId.within!.failure_class).toBeUndefined();
    expect(byId.tokens).toMatchObject({ passed: false, failure_class: 'budget' });
    expect(byId.tokens!.misses[0]).toBe('over budget: 600 tokens > max_tokens 100');
    expect(byId.cost).toMatchObject({ passed: false, failure_class: 'budget' });
    expect(byId.cost!.misses[0]).toBe('over budget: cost $0.3 > max_cost_usd $0.1');
    // Stopped at its limit, not after the agent's 20 s; failed, not errored.
    expect(byId.slow).toMatchObject({ passed: false, failure_class: 'budget' });
    expect(byId.slow!.error).toBeUndefined();
    expect(byId.slow!.misses[0]).toMatch(
      /^over budget: .* > max_duration_seconds 1 \(the agent was stopped\)$/,
    );
    expect(elapsed).toBeLessThan(18_000);
    expect(run.stdout).toContain('Failures by class: budget 3');
  });
});

describe('case budgets of an LLM target', () => {
  it('fail a case whose one model request crossed max_tokens after the fact, with its answer kept', async () => {
    const llm = await startLlmServer(() =>
      chatReply('answer ok', { prompt: 500, completion: 100 }),
    );
    const llmProject = await createProject({
      '.agentv/targets.yaml': `targets:
  - name: default
    provider: openai-compatible
    base_url: ${llm.url}/v1
    api_key: sk-budget-test
    model: gpt-4o-mini
    max_retries: 0
`,
      'evals/llm.yaml': `execution:
  target: default
  evaluators:
    - { name: right, type: contains, value: "answer ok" }
evalcases:${CASE('tokens', 'max_tokens: 100')}${CASE('within', 'max_tokens: 1000')}
`,
    });
    try {
      const run = await runAgentv(['eval', 'evals/llm.yaml', '--out', 'llm.jsonl'], llmProject.dir);
      expect(run.code).toBe(1);
      const lines = parseJsonl(await readFile(llmProject.file('llm.jsonl'), 'utf8')) as Line[];
      const byId = Object.fromEntries(lines.map((line) => [line.eval_id, line]));
      // Its usage is known once the answer is in: graded, then failed with the measured value.
      expect(byId.tokens).toMatchObject({
        passed: false,
        failure_class: 'budget',
        candidate_answer: 'answer ok',
        usage: { input_tokens: 500, output_tokens: 100 },
      });
      expect(byId.tokens!.misses[0]).toBe('over budget: 600 tokens > max_tokens 100');
      expect(byId.within!.passed).toBe(true);
      expect(llm.requests).toHaveLength(2);
    } finally {
      await llm.close();
      await llmProject.cleanup();
    }
  });
});

describe('--budget-usd', () => {
  it('stops starting cases once spent, lists the cases not run and exits 3', async () => {
    const run = await runAgentv(
      ['eval', 'evals/spend.yaml', '--workers', '1', '--budget-usd', '0.5', '--out', 'run.jsonl'],
      project.dir,
    );
    expect(run.code).toBe(3);
    const lines = parseJsonl(await readFile(project.file('run.jsonl'), 'utf8')) as Line[];
    expect(lines.map((line) => line.eval_id)).toEqual(['one', 'two']);
    expect(run.stdout).toContain(
      'budget spent: $0.6000 of --budget-usd $0.5; 2 of 4 cases were not run:',
    );
    expect(run.stdout).toMatch(/not run\s+three \(default\)/);
    expect(run.stdout).toMatch(/not run\s+four \(default\)/);
  });

  it('counts the spend of every repeat', async () => {
    const run = await runAgentv(
      [
        'eval',
        'evals/spend.yaml',
        '--workers',
        '1',
        '--repeat',
        '2',
        '--budget-usd',
        '1.1',
        '--out',
        'repeat.jsonl',
      ],
      project.dir,
    );
    expect(run.code).toBe(3);
    // Repeat 1 spends $1.20 on the four cases; repeat 2 starts none.
    expect(run.stdout).toContain('4 of 4 cases were not run');
  });
});
