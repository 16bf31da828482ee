import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createProject,
  ECHO_AGENT,
  type Project,
  parseJsonl,
  runAgentv,
} from '../support/project.js';

// LLM graders end to end: the built agentv binary grades with a `cli` judge
// target, a node script that reads the judge prompt and prints a canned reply.

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

const JUDGE = `
import { appendFileSync, readFileSync } from 'node:fs';
const args = process.argv.slice(2);
const prompt = readFileSync(args[args.indexOf('--prompt-file') + 1], 'utf8');
const id = args[args.indexOf('--id') + 1];
appendFileSync('judge-calls.log', id + '\\n');
const calls = readFileSync('judge-calls.log', 'utf8').split('\\n').filter((line) => line === id).length;
if (prompt.includes('[[ ## rubrics ## ]]')) {
  process.stdout.write(JSON.stringify({
    checks: [
      { id: 'amount', satisfied: prompt.includes('$20'), reasoning: 'looked for $20' },
      { id: 'rubric-2', satisfied: true, reasoning: 'polite enough' },
    ],
    overall_reasoning: 'rubric checked',
  }));
} else if (prompt.includes('never-json')) {
  process.stdout.write('The answer looks fine to me.');
} else if (prompt.includes('overload-once') && calls === 1) {
  process.stderr.write('judge: overloaded');
  process.exit(1);
} else if (prompt.includes('flaky') && calls === 1) {
  process.stdout.write('Let me think about it...');
} else {
  const score = prompt.includes('refund') ? 0.9 : 0.2;
  const custom = prompt.startsWith('CUSTOM') ? 'custom prompt; ' : '';
  process.stdout.write('Here is my grade:\\n\`\`\`json\\n' + JSON.stringify({
    score, hits: ['judged'], misses: [], reasoning: custom + 'call ' + calls,
  }) + '\\n\`\`\`\\n');
}
`;

const TARGETS = `
targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node agent.mjs --prompt {PROMPT} --out {OUTPUT_FILE}
    max_retries: 0
    judge_target: judge
  - name: judge
    provider: cli
    cwd: ..
    command_template: node judge.mjs --prompt-file {PROMPT_FILE} --id {EVAL_ID}
    max_retries: 1
`;

const case_ = (id: string, content: string, rest = '') => `
  - id: ${id}
    expected_outcome: Confirms the refund
    input_messages:
      - { role: user, content: ${JSON.stringify(content)} }${rest}`;

const EVALS = `execution:
  target: default
evalcases:${case_('default-judge', 'Please refund order 42.')}${case_(
  'custom-prompt',
  'Please refund order 7.',
  `
    evaluators:
      - { name: custom, type: llm_judge, prompt: ./judge-prompt.md }`,
)}${case_(
  'rubric-case',
  'Refund $20 please.',
  `
    rubrics:
      - { id: amount, expected_outcome: Mentions $20, weight: 2 }
      - Is polite`,
)}${case_(
  'composite-case',
  'A refund for order 9.',
  `
    evaluators:
      - name: combined
        type: composite
        evaluators:
          - { name: mentions, type: contains, value: refund }
          - { name: quality, type: llm_judge }
        aggregator: { type: weighted_average, weights: { mentions: 1, quality: 1 } }`,
)}${case_('flaky-case', 'flaky: refund please')}${case_('overloaded-judge', 'overload-once: refund please')}${case_('broken-judge', 'never-json refund')}
`;

describe('LLM graders with a cli judge target', () => {
  it('grades with llm_judge, rubrics and composite, retries a bad reply, and errors on a hopeless one', async () => {
    project = await createProject({
      'agent.mjs': ECHO_AGENT,
      'judge.mjs': JUDGE,
      '.agentv/targets.yaml': TARGETS,
      'evals/graders.yaml': EVALS,
      'evals/judge-prompt.md': 'CUSTOM grade: {{ candidate_answer }}',
    });
    const run = await runAgentv(
      ['eval', 'evals/graders.yaml', '--out', 'out.jsonl', '--workers', '1'],
      project.dir,
    );
    expect(run.code).toBe(2);
    const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    const byId = Object.fromEntries(lines.map((line) => [line.eval_id, line]));

    expect(byId['default-judge']).toMatchObject({
      score: 0.9,
      passed: true,
      evaluator_results: [{ name: 'llm_judge', type: 'llm_judge', score: 0.9, verdict: 'pass' }],
    });
    expect(byId['custom-prompt']!.evaluator_results[0].reasoning).toBe('custom prompt; call 1');

    const rubric = byId['rubric-case']!.evaluator_results[0];
    expect(rubric).toMatchObject({ name: 'rubrics', type: 'rubric', score: 1, verdict: 'pass' });
    expect(rubric.details.items).toEqual([
      {
        id: 'amount',
        description: 'Mentions $20',
        weight: 2,
        required: true,
        satisfied: true,
        reasoning: 'looked for $20',
      },
      {
        id: 'rubric-2',
        description: 'Is polite',
        weight: 1,
        required: true,
        satisfied: true,
        reasoning: 'polite enough',
      },
    ]);

    const composite = byId['composite-case']!.evaluator_results[0];
    expect(composite).toMatchObject({ type: 'composite', score: 0.95 });
    expect(
      composite.members.map((member: { name: string; score: number }) => [
        member.name,
        member.score,
      ]),
    ).toEqual([
      ['mentions', 1],
      ['quality', 0.9],
    ]);

    // The first reply had no JSON; the judge was asked again.
    expect(byId['flaky-case']).toMatchObject({ score: 0.9, passed: true });
    expect(byId['flaky-case']!.evaluator_results[0].reasoning).toBe('call 2');

    // The judge's command failed once; the call was retried like an agent call.
    expect(byId['overloaded-judge']).toMatchObject({ score: 0.9, passed: true });
    expect(byId['overloaded-judge']!.evaluator_results[0].reasoning).toBe('call 2');

    expect(byId['broken-judge']).toMatchObject({ passed: false, score: 0 });
    expect(byId['broken-judge']!.error).toBe(
      'evaluator "llm_judge" (llm_judge) failed: judge target "judge" gave an unusable reply twice: it holds no JSON object; the reply was: The answer looks fine to me.; make the judge reply with the JSON object its prompt asks for',
    );
    const calls = (await readFile(project.file('judge-calls.log'), 'utf8')).trim().split('\n');
    expect(calls.filter((id) => id === 'broken-judge')).toHaveLength(2);
  });

  it('answers for the judge with a passing grade in a dry run', async () => {
    project = await createProject({
      '.agentv/targets.yaml': TARGETS,
      'evals/graders.yaml': `evalcases:${case_('one', 'refund please')}\n`,
    });
    const run = await runAgentv(
      ['eval', 'evals/graders.yaml', '--out', 'out.jsonl', '--dry-run'],
      project.dir,
    );
    expect(run.code).toBe(0);
    const [line] = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(line).toMatchObject({
      passed: true,
      evaluator_results: [
        { type: 'llm_judge', score: 1, reasoning: 'dry run: the judge was not asked' },
      ],
    });
  });

  it('validate counts a judge target as used, so its unknown provider is an error', async () => {
    project = await createProject({
      '.agentv/targets.yaml': `targets:
  - name: default
    provider: mock
    judge_target: judge
  - name: judge
    provider: not-a-provider
`,
      'evals/graders.yaml': `evalcases:${case_('one', 'refund please')}\n`,
    });
    const run = await runAgentv(['validate', 'evals', '.agentv'], project.dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      'error: .agentv/targets.yaml:6:5: target "judge": unknown provider "not-a-provider" (hint: use one of: amazon-bedrock, anthropic, azure, azure-openai, bedrock, claude, claude-cli, claude-code, cli, codex, copilot, copilot-cli, deepseek, gemini, gemini-cli, google, google-gemini, google-vertex, groq, http, mistral, mock, openai, openai-compatible, opencode, openrouter, vertex, xai (used by evals/graders.yaml))',
    );
  });

  it('rejects a --judge-target that does not exist before running anything', async () => {
    project = await createProject({
      'agent.mjs': ECHO_AGENT,
      'judge.mjs': JUDGE,
      '.agentv/targets.yaml': TARGETS,
      'evals/graders.yaml': `evalcases:${case_('one', 'refund please')}\n`,
    });
    const run = await runAgentv(
      ['eval', 'evals/graders.yaml', '--out', 'out.jsonl', '--judge-target', 'gpt-judge'],
      project.dir,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('judge target "gpt-judge" (from --judge-target) does not exist');
    expect(run.stderr).toContain('default, judge');
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });
});
