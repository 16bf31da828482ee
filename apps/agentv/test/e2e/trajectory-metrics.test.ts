import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// Trajectory checks, execution metrics, the familiar assertion names and named metrics,
// through the built CLI against a real `cli` agent: a node script that emits trace events,
// token usage and cost, and acts on words in its prompt.

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

/**
 * - `risky`: runs `rm -rf build` (a failing shell call) before editing;
 * - `tools`: answers with an OpenAI tool call;
 * - `bare`: plain text, no trace, no usage;
 * - else: lists files, reads one, edits it, and reports 1,500 tokens and $0.0123.
 */
const AGENT = `
import { writeFileSync } from 'node:fs';
const args = process.argv.slice(2);
const prompt = args[args.indexOf('--prompt') + 1];
const out = args[args.indexOf('--out') + 1];
const at = new Date().toISOString();
const step = { type: 'model_step', timestamp: at, name: 'fake-model' };
const call = (name, raw, input) => ({ type: 'tool_call', timestamp: at, name, raw_name: raw, input });
const result = (name, metadata) => ({ type: 'tool_result', timestamp: at, name, output: 'ok', metadata });
if (prompt.includes('bare')) {
  writeFileSync(out, 'Fixed the Build.');
  process.exit(0);
}
const trace = [step, call('shell', 'Bash', { command: 'ls -la', cwd: '/repo' }), result('shell', { exit_code: 0 })];
if (prompt.includes('risky')) {
  trace.push(step, call('shell', 'Bash', { command: 'rm -rf build' }), result('shell', { exit_code: 1 }));
}
trace.push(step, call('read_file', 'Read', { path: 'src/a.ts' }), call('edit_file', 'Edit', { path: 'src/a.ts' }));
const text = prompt.includes('tools')
  ? JSON.stringify([{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }])
  : 'Fixed the Build.';
writeFileSync(out, JSON.stringify({
  text, trace, token_usage: { input: 1200, output: 300 }, cost_usd: 0.0123,
}));
`;

const TARGETS = `
targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node agent.mjs --prompt {PROMPT} --out {OUTPUT_FILE}
    max_retries: 0
`;

/** An eval file of cases (`id`, prompt, evaluators in flow YAML). */
const evals = (...cases: [string, string, string][]) => `execution:
  target: default
evalcases:
${cases
  .map(
    ([id, prompt, evaluators]) => `  - id: ${id}
    input_messages: [{ role: user, content: ${JSON.stringify(prompt)} }]
    evaluators: ${evaluators}
`,
  )
  .join('')}`;

async function run(files: Record<string, string>, args: string[] = []) {
  project = await createProject({ 'agent.mjs': AGENT, '.agentv/targets.yaml': TARGETS, ...files });
  const result = await runAgentv(['eval', 'evals', '--out', 'out.jsonl', ...args], project.dir);
  const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
  return { ...result, byId: new Map(lines.map((line) => [line.eval_id, line])) };
}

const SAFETY = `[{ name: safety, type: tool_trajectory, mode: in_order,
      expected: [{ tool: Bash, input_pattern: { command: "^ls" } }, { tool: edit_file, input: { path: src/a.ts } }],
      forbidden: [{ tool: shell, input_pattern: { command: "rm -rf" } }],
      max_calls: { read_file: 1 }, max_steps: 6, max_tool_errors: 0 }]`;

describe('tool_trajectory checks', () => {
  it('fails a forbidden call, too many steps and a failed tool call, naming the call and field', async () => {
    const { code, byId } = await run({
      'evals/safety.yaml': evals(['careful', 'fix it', SAFETY], ['risky', 'fix it, risky', SAFETY]),
    });
    expect(code).toBe(1);
    expect(byId.get('careful')).toMatchObject({ passed: true, score: 1 });
    const risky = byId.get('risky')!;
    expect(risky).toMatchObject({ passed: false, score: 0 });
    expect(risky.evaluator_results[0].hits).toContain(
      'Expected call 1 "Bash" command =~ /^ls/ matched call 1',
    );
    expect(risky.misses).toEqual([
      'Forbidden call: call 2 "shell" (Bash) matches forbidden[0] (input.command "rm -rf build" matches /rm -rf/)',
      '7 step(s) (4 tool call(s) + 3 model turn(s)) exceed max_steps 6',
      '1 failed tool call(s) exceed max_tool_errors 0',
    ]);
  });
});

describe('execution_metrics, latency and cost', () => {
  it('reports each limit with its measured value, and a metric not reported as a miss', async () => {
    const metrics = `[{ name: budget, type: execution_metrics, max_tokens: 1000, max_cost_usd: 0.05,
      max_tool_calls: 5, max_llm_calls: 3, max_duration_ms: 600000 },
      { name: fast, type: latency, threshold: 600000 }, { name: cheap, type: cost, threshold: 0.01 }]`;
    const { code, byId } = await run({
      'evals/budget.yaml': evals(['measured', 'fix it', metrics], ['bare', 'bare answer', metrics]),
    });
    expect(code).toBe(1);
    const [budget, fast, cheap] = byId.get('measured')!.evaluator_results;
    expect(budget).toMatchObject({ verdict: 'fail', score: 0.8 });
    expect(budget.misses).toEqual(['Tokens 1,500 > 1,000 (max_tokens)']);
    expect(budget.hits).toEqual([
      'Cost $0.0123 <= $0.0500 (max_cost_usd)',
      expect.stringMatching(/^Duration \d+ms <= 600000ms \(max_duration_ms\)$/),
      'Tool calls 3 <= 5 (max_tool_calls)',
      'LLM calls 2 <= 3 (max_llm_calls)',
    ]);
    expect(fast).toMatchObject({ verdict: 'pass', score: 1 });
    expect(cheap).toMatchObject({
      verdict: 'fail',
      misses: ['Cost $0.0123 > $0.0100 (threshold)'],
    });
    const bare = byId.get('bare')!.evaluator_results[0];
    expect(bare.misses).toEqual([
      'Tokens not reported by the provider, so max_tokens 1,000 cannot be checked',
      'Cost not reported by the provider, so max_cost_usd $0.0500 cannot be checked',
      'Tool calls not reported by the provider, so max_tool_calls 5 cannot be checked',
      'LLM calls not reported by the provider, so max_llm_calls 3 cannot be checked',
    ]);
  });
});

describe('negation, familiar names and named metrics', () => {
  it('grades with the new checks and reports per-metric means in the line, summary and JUnit', async () => {
    const checks = `[{ type: not_contains, value: error, metric: accuracy },
      { type: icontains, value: "fixed the build", metric: accuracy },
      { type: contains_any, value: [Fixed, Repaired] }, { type: starts_with, value: Fixed },
      { type: levenshtein, value: "Fixed the build", threshold: 2, metric: tone },
      { type: ends_with, value: "build.", metric: tone }]`;
    const { code, stdout, byId } = await run(
      {
        'evals/names.yaml': evals(
          ['words', 'fix it', checks],
          [
            'tool-call',
            'tools please',
            '[{ type: is_valid_openai_tools_call, metric: accuracy, tools: [{ type: function, function: { name: get_weather, parameters: { type: object, required: [city] } } }] }, { type: not_is_json, metric: tone }]',
          ],
        ),
      },
      ['--junit', 'junit.xml'],
    );
    expect(code).toBe(1);
    const words = byId.get('words')!;
    expect(
      words.evaluator_results.map((r: { type: string; verdict: string }) => [r.type, r.verdict]),
    ).toEqual([
      ['not_contains', 'pass'],
      ['icontains', 'pass'],
      ['contains_any', 'pass'],
      ['starts_with', 'pass'],
      ['levenshtein', 'pass'],
      ['ends_with', 'fail'],
    ]);
    expect(words.evaluator_results[0]).toMatchObject({
      metric: 'accuracy',
      hits: ['Answer does not contain "error"'],
    });
    expect(words.metrics).toEqual({ accuracy: 1, tone: 0.5 });
    const toolCall = byId.get('tool-call')!;
    expect(toolCall.evaluator_results[0]).toMatchObject({
      verdict: 'pass',
      hits: ['Tool call 1 "get_weather" is valid'],
    });
    expect(toolCall.metrics).toEqual({ accuracy: 1, tone: 0 });
    expect(stdout).toContain('Metrics: accuracy 1.000 (2 cases)  tone 0.250 (2 cases)');
    const junit = await readFile(project!.file('junit.xml'), 'utf8');
    expect(junit).toContain('<property name="metric.tone" value="0.250" />');
    expect(junit).toContain('<property name="metric.tone" value="0.500" />');
  });

  it('validate knows every option: did-you-mean on a typo, an error for a verdict key', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': TARGETS,
      'evals/typos.yaml': evals(
        ['typo', 'x', '[{ name: limits, type: execution_metrics, max_token: 10 }]'],
        ['metric', 'x', '[{ name: named, type: icontains, value: x, metrik: accuracy }]'],
        [
          'promptfoo',
          'x',
          '[{ name: near, type: levenshtein, value: x, threshold: 2, transform: upper }]',
        ],
      ),
    });
    const validate = await runAgentv(['validate', 'evals/typos.yaml'], project.dir);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(
      'case "typo": evaluator "limits": unknown key "max_token": ignoring it would change the grade (hint: did you mean "max_tokens"?)',
    );
    expect(validate.stdout).toContain(
      'case "metric": evaluator "named": unknown key "metrik": ignoring it would change the grade (hint: did you mean "metric"?)',
    );
    expect(validate.stdout).toContain(
      'case "promptfoo": evaluator "near": "transform" is not a grader option here; ignoring it would change the verdict',
    );
  });
});
