// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} is targets-file syntax, not a JS template
import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { chatReply, type LlmServer, lastUserText, startLlmServer } from '../support/llm-servers.js';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// `agentv grade` end to end: record a run with --include-trace through a `cli`
// agent that logs every start, change the eval file, grade again, and check
// the verdicts followed the eval file while no agent process was started.

let project: Project | undefined;
let server: LlmServer | undefined;
afterEach(async () => {
  await server?.close();
  await project?.cleanup();
  project = undefined;
  server = undefined;
});

const AGENT = `
import { appendFileSync, writeFileSync } from 'node:fs';
appendFileSync('starts.log', 'start\\n');
const args = process.argv.slice(2);
const prompt = args[args.indexOf('--prompt') + 1];
const out = args[args.indexOf('--out') + 1];
if (prompt.includes('crash')) { console.error('agent: crashed'); process.exit(3); }
const now = new Date().toISOString();
writeFileSync(out, JSON.stringify({
  text: 'You said: ' + prompt,
  trace: [{ type: 'tool_call', timestamp: now, name: 'lookup', input: { prompt } }],
  token_usage: { input: 11, output: 7 },
  cost_usd: 0.25,
}));
`;

const TARGETS = `targets:
  - name: agent
    provider: cli
    cwd: ..
    command_template: node agent.mjs --prompt {PROMPT} --out {OUTPUT_FILE}
    max_retries: 0
`;

const evalCase = (id: string, prompt: string, evaluators: string) => `
  - id: ${id}
    input_messages: [{ role: user, content: ${JSON.stringify(prompt)} }]
    evaluators: ${evaluators}
`;

const starts = async (p: Project) =>
  (await readFile(p.file('starts.log'), 'utf8').catch(() => '')).split('\n').filter(Boolean).length;

const grade = (args: string[]) => runAgentv(['grade', ...args], project!.dir);

describe('agentv grade', () => {
  it('re-grades recorded answers with the current evaluators without starting the agent', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': TARGETS,
      'evals/e.yaml': `execution:\n  target: agent\nevalcases:\n${[
        evalCase('alpha', 'alpha question', '[{ type: contains, value: "alpha" }]'),
        evalCase(
          'beta',
          'beta question',
          '[{ type: contains, value: "zzz" }, { type: tool_trajectory, mode: in_order, expected: [{ tool: lookup }] }]',
        ),
      ].join('')}`,
    });
    const recorded = await runAgentv(
      ['eval', 'evals/e.yaml', '--include-trace', '--out', 'run.jsonl'],
      project.dir,
    );
    expect(recorded.code).toBe(1); // beta's "zzz" is not in the answer
    expect(await starts(project)).toBe(2);

    // The expected values change: alpha now fails, beta now passes.
    await writeFile(
      project.file('evals/e.yaml'),
      `execution:\n  target: agent\nevalcases:\n${[
        evalCase('alpha', 'alpha question', '[{ type: contains, value: "gamma" }]'),
        evalCase(
          'beta',
          'beta question',
          '[{ type: contains, value: "beta" }, { type: tool_trajectory, mode: in_order, expected: [{ tool: lookup }] }]',
        ),
      ].join('')}`,
    );
    const graded = await grade(['run.jsonl', '--out', 'graded.jsonl', '--junit', 'junit.xml']);
    expect(graded.stderr).toBe('');
    expect(graded.code).toBe(1);
    expect(graded.stdout).toContain('Re-graded 2 recorded case(s) of run.jsonl');
    expect(graded.stdout).toContain('JUnit: junit.xml');
    expect(await starts(project)).toBe(2); // no agent process was started

    const before = parseJsonl(await readFile(project.file('run.jsonl'), 'utf8'));
    const after = parseJsonl(await readFile(project.file('graded.jsonl'), 'utf8'));
    const byId = (lines: typeof after, id: string) => lines.find((line) => line.eval_id === id)!;
    expect(byId(before, 'alpha').passed).toBe(true);
    expect(byId(before, 'beta').passed).toBe(false);
    expect(byId(after, 'alpha')).toMatchObject({
      passed: false,
      target: 'agent',
      eval_file: 'evals/e.yaml',
      graded_from: 'run.jsonl',
      candidate_answer: 'You said: alpha question',
      usage: { input_tokens: 11, output_tokens: 7 },
      cost_usd: 0.25,
      duration_ms: byId(before, 'alpha').duration_ms,
    });
    // The recorded trace is graded again (tool_trajectory) and kept for the next re-grade.
    expect(byId(after, 'beta')).toMatchObject({ passed: true, score: 1 });
    expect(byId(after, 'beta').trace).toEqual(byId(before, 'beta').trace);
    expect(byId(after, 'beta').run).toEqual(byId(before, 'beta').run);
    expect(await readFile(project.file('junit.xml'), 'utf8')).toContain('alpha');

    // Graded lines can be graded again; without eval file arguments the recorded ones are used.
    const again = await grade(['graded.jsonl', 'evals/e.yaml', '--out', 'again.jsonl']);
    expect(again.code).toBe(1);
    expect(await starts(project)).toBe(2);

    // --verbose shows the recorded answer of the case that now fails, and only that one.
    const verbose = await grade(['run.jsonl', '--out', 'verbose.jsonl', '--verbose']);
    expect(verbose.code).toBe(1);
    expect(verbose.stderr.split('\n').filter((line) => line.startsWith('answer of'))).toEqual([
      'answer of alpha: "You said: alpha question"',
    ]);
  });

  it('names the target in each progress line when the run had several, as eval does', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': `${TARGETS}${TARGETS.replace('targets:\n', '').replace('name: agent', 'name: other')}`,
      'evals/e.yaml': `execution:\n  targets: [agent, other]\nevalcases:\n${evalCase('alpha', 'alpha question', '[{ type: contains, value: "alpha" }]')}`,
    });
    const recorded = await runAgentv(
      ['eval', 'evals/e.yaml', '--include-trace', '--out', 'run.jsonl'],
      project.dir,
    );
    expect(recorded.code).toBe(0);
    await writeFile(
      project.file('evals/e.yaml'),
      `execution:\n  targets: [agent, other]\nevalcases:\n${evalCase('alpha', 'alpha question', '[{ type: contains, value: "gamma" }]')}`,
    );
    const graded = await grade(['run.jsonl', '--out', 'graded.jsonl', '--verbose']);
    expect(graded.code).toBe(1);
    // The two targets are graded at once: either may come first.
    const progress = graded.stdout.split('\n').filter((line) => /^\[\d\/2\]/.test(line));
    expect(
      progress
        .map((line) =>
          line
            .split(/\s{2,}/)
            .slice(1, 2)
            .join(' '),
        )
        .sort(),
    ).toEqual(['alpha [agent]', 'alpha [other]']);
    const answers = graded.stderr.split('\n').filter((line) => line.startsWith('answer of'));
    expect(answers.sort()).toEqual([
      'answer of alpha [agent]: "You said: alpha question"',
      'answer of alpha [other]: "You said: alpha question"',
    ]);
  });

  it('reports recorded cases it cannot grade and eval cases the run did not record', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': TARGETS,
      'evals/e.yaml': `execution:\n  target: agent\nevalcases:\n${[
        evalCase('kept', 'kept question', '[{ type: contains, value: "kept" }]'),
        evalCase('removed', 'removed question', '[{ type: contains, value: "removed" }]'),
        evalCase('boom', 'crash please', '[{ type: contains, value: "x" }]'),
      ].join('')}`,
    });
    const recorded = await runAgentv(
      ['eval', 'evals/e.yaml', '--include-trace', '--out', 'run.jsonl'],
      project.dir,
    );
    expect(recorded.code).toBe(2); // boom errored
    await writeFile(
      project.file('evals/e.yaml'),
      `execution:\n  target: agent\nevalcases:\n${[
        evalCase('kept', 'kept question', '[{ type: contains, value: "kept" }]'),
        evalCase('boom', 'crash please', '[{ type: contains, value: "x" }]'),
        evalCase('added', 'added question', '[{ type: contains, value: "added" }]'),
      ].join('')}`,
    );
    const startsBefore = await starts(project);
    const graded = await grade(['run.jsonl', '--out', 'graded.jsonl']);
    expect(graded.code).toBe(2);
    expect(graded.stderr).toMatch(
      /run\.jsonl:\d+ case "removed" \(evals\/e\.yaml, target agent\) not graded: case "removed" is no longer in evals\/e\.yaml/,
    );
    expect(graded.stderr).toMatch(/case "boom" .* not graded: it errored in the recorded run/);
    expect(graded.stderr).toContain(
      'case "added" (evals/e.yaml, target agent) is not in run.jsonl; run it with agentv eval',
    );
    expect(graded.stdout).toContain('2 not graded');
    expect(graded.stdout).toContain('1 eval case(s) not in the result file');
    const after = parseJsonl(await readFile(project.file('graded.jsonl'), 'utf8'));
    expect(after.map((line) => line.eval_id)).toEqual(['kept']);
    expect(after[0]!.passed).toBe(true);
    expect(await starts(project)).toBe(startsBefore);
  });

  it('refuses a result file written without --include-trace, a missing file and a bad line', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': TARGETS,
      'evals/e.yaml': `execution:\n  target: agent\nevalcases:\n${evalCase('one', 'one', '[{ type: contains, value: "one" }]')}`,
    });
    const recorded = await runAgentv(['eval', 'evals/e.yaml', '--out', 'plain.jsonl'], project.dir);
    expect(recorded.code).toBe(0);

    const plain = await grade(['plain.jsonl']);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('plain.jsonl was written without --include-trace');
    expect(plain.stderr).toContain('re-run agentv eval with --include-trace');

    const missing = await grade(['nope.jsonl']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read nope.jsonl: the file does not exist');

    await writeFile(
      project.file('bad.jsonl'),
      '{"eval_id":"one","target":"agent","score":1}\nnot json\n',
    );
    const bad = await grade(['bad.jsonl']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      `agentv: bad.jsonl:2:1: invalid JSON: Unexpected token 'o', "not json" is not valid JSON\n`,
    );
  });

  it('still asks the judge target of llm_judge', async () => {
    server = await startLlmServer(() =>
      chatReply(JSON.stringify({ score: 0.9, hits: ['ok'], misses: [], reasoning: 'Good.' })),
    );
    project = await createProject({
      'agent.mjs': AGENT,
      '.env': `JUDGE_BASE_URL=${server.url}/v1\nJUDGE_API_KEY=sk-judge-123\n`,
      '.agentv/targets.yaml': `${TARGETS}    judge_target: judge
  - name: judge
    provider: openai-compatible
    base_url: \${{ JUDGE_BASE_URL }}
    api_key: \${{ JUDGE_API_KEY }}
    model: gpt-4o-mini
`,
      'evals/e.yaml': `execution:\n  target: agent\nevalcases:\n${evalCase('judged', 'judged question', '[{ name: quality, type: llm_judge }]')}`,
    });
    const recorded = await runAgentv(
      ['eval', 'evals/e.yaml', '--include-trace', '--no-cache', '--out', 'run.jsonl'],
      project.dir,
    );
    expect(recorded.code).toBe(0);
    expect(server.requests).toHaveLength(1);

    const graded = await grade(['run.jsonl', '--no-cache', '--out', 'graded.jsonl']);
    expect(graded.stderr).toBe('');
    expect(graded.code).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(lastUserText(server.requests[1]!)).toContain('You said: judged question');
    expect(await starts(project)).toBe(1);
    const [line] = parseJsonl(await readFile(project.file('graded.jsonl'), 'utf8'));
    expect(line!.evaluator_results[0]).toMatchObject({ name: 'quality', score: 0.9 });
    expect(JSON.stringify(line)).not.toContain('sk-judge-123');
  });
});
